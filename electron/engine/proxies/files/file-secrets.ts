import { isCredentialHeader } from '../../../../shared/secrets/credential-headers';
import { REFERENCE_NAME_RULE, referencesIn, referenceTo, replaceReferences } from '../../../../shared/secrets/references';
import { madeName } from '../../secrets/saved-credentials';
import type { SecretStore, SecretWrites } from '../../secrets/secret-store';
import { ValuesAsReferences } from '../../secrets/values-as-references';
import { ApiProblem } from '../../server/problem';

/**
 * A file proxy's configuration keeps its secret values as references to Secrets (`${secret:NAME}`), never the values:
 * the folder is meant for a repository. They are checked when the file loads and put in at each call.
 */

/** What a file's configuration holds that the engine refuses (by field path), and what it only flags. */
export interface ConfigurationCheck {
  errors: Record<string, string[]>;
  warnings: string[];
}

/** A configuration key whose value is a credential by its name: `API_KEY`, `client_secret`, `password`. */
export const namesCredential = (key: string) => isCredentialHeader(key);

export function checkFileConfiguration(configuration: Readonly<Record<string, string>>, secrets: SecretStore): ConfigurationCheck {
  const check: ConfigurationCheck = { errors: {}, warnings: [] };
  for (const [key, value] of Object.entries(configuration)) {
    const references = referencesIn(value);
    for (const reference of references) {
      const problem =
        reference.kind !== 'secret'
          ? `only \${secret:NAME} references are put in a proxy's configuration, not ${value.slice(reference.from, reference.to)}`
          : !reference.valid
            ? `${value.slice(reference.from, reference.to)} names no secret: ${REFERENCE_NAME_RULE}`
            : null;
      if (problem) (check.errors[`configuration.${key}`] ??= []).push(problem);
      else if (!secrets.has(reference.name)) check.warnings.push(`configuration.${key} refers to the secret “${reference.name}”, which Secrets does not hold: calls answer an error until it is set`);
    }
    if (references.length === 0 && value.trim() !== '' && namesCredential(key)) {
      check.warnings.push(`configuration.${key} looks like a credential kept in the file in plain text: keep it in Secrets and write \${secret:NAME} here`);
    }
  }
  return check;
}

/**
 * The configuration with its references put in, for one call, and what they resolved to (for the call's log). A
 * secret missing now is this call's problem, in the proxy's error form.
 */
export function resolvedConfiguration(configuration: Readonly<Record<string, string>>, secrets: SecretStore, file: string): { configuration: Record<string, string>; values: ValuesAsReferences | null } {
  const values = new Map<string, string>();
  const resolved: Record<string, string> = {};
  for (const [key, value] of Object.entries(configuration)) {
    resolved[key] = replaceReferences(value, (reference) => {
      const secret = secrets.value(reference.name);
      if (secret === undefined) {
        throw new ApiProblem(422, `configuration.${key} of ${file} refers to the secret “${reference.name}”, which Secrets does not hold: set it in Settings, under Secrets, then call again`);
      }
      values.set(secret, referenceTo('secret', reference.name));
      return secret;
    });
  }
  return { configuration: resolved, values: values.size === 0 ? null : new ValuesAsReferences(values) };
}

/**
 * The configuration as a file keeps it: each value that is a credential by its key's name (or named in `secretKeys`)
 * moved into Secrets (a value kept already reuses its name; another gets one made from `where` and the key), written
 * as its reference. Stage it in `secrets.atomically`, whose write is what must succeed with it.
 */
export function configurationAside(
  configuration: Readonly<Record<string, string>>,
  where: string,
  secrets: SecretWrites,
  secretKeys: readonly string[],
): { configuration: Record<string, string>; moved: { key: string; secret: string }[] } {
  const moved: { key: string; secret: string }[] = [];
  const known = secrets.namesByValue();
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(configuration)) {
    const secret = referencesIn(value).length === 0 && value !== '' && (secretKeys.includes(key) || namesCredential(key));
    if (!secret) {
      kept[key] = value;
      continue;
    }
    let name = known.get(value);
    if (name === undefined) {
      let n = 1;
      while (secrets.has((name = madeName(where, key, n)))) n++;
      secrets.set(name, value);
      known.set(value, name);
    }
    moved.push({ key, secret: name });
    kept[key] = referenceTo('secret', name);
  }
  return { configuration: kept, moved };
}
