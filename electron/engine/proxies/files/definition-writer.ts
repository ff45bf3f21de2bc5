import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { nowIso } from '../../clock';
import type { SecretStore } from '../../secrets/secret-store';
import { ApiProblem } from '../../server/problem';
import { writeFileAtomic } from '../../storage/atomic-file';
import type { FileIdentities, FileIdentity } from './file-identities';
import { configurationAside } from './file-secrets';
import type { ProxyFolder } from './proxy-folder';

/** What an export or an import wrote, and what became of the definition's identity and secrets. */
export interface DefinitionFilesWritten {
  path: string;
  files: string[];
  id: string;
  kept_identity: boolean;
  moved: { key: string; secret: string }[];
}

/** One proxy or reactor to write into the folder: its files, and the identity the engine keeps for its path. */
export interface DefinitionToWrite {
  /** The JSON file's name in the folder: `charge.json`, `card.reactor.json`. */
  path: string;
  /** The configuration as the API holds it: its secret values go to Secrets, named from `secretsFrom` and the key. */
  configuration: Readonly<Record<string, string>>;
  secretsFrom: string;
  /** The file's JSON, given the configuration as the file keeps it (secret values as references). */
  json(configuration: Record<string, string>): Record<string, unknown>;
  /** The code files beside it, each `[name, text]`. */
  code: [string, string][];
  identities: FileIdentities;
  /** The identity to claim for the path; null: the one the path has, or a new one. */
  identity: FileIdentity | null;
  /** Done last, once the files and the identity are kept: an export takes the API's copy away. */
  commit?: () => Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A name as a file's: `Charge a card` → `charge-a-card`; `fallback` when nothing is left of it. */
export const fileBaseOf = (name: string, fallback: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
    .slice(0, 80) || fallback;

/** The hosted service's object (GET /proxies/{id}, GET /reactors/{id}) as pasted: one JSON object, or a 400. */
export function hostedObject(json: string, noun: 'proxy' | 'reactor', route: string): Record<string, unknown> {
  let hosted: unknown;
  try {
    hosted = JSON.parse(json);
  } catch (error) {
    throw new ApiProblem(400, `The ${noun} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof hosted !== 'object' || hosted === null || Array.isArray(hosted)) throw new ApiProblem(400, `The ${noun} is one JSON object, as ${route} answers it`);
  return { ...hosted };
}

/**
 * The identity of a hosted object to keep: its id (with `key` for a proxy's key, '' for a reactor) and creation time,
 * when the id is a UUID that nothing here has (`taken`), so an integration's configuration works unchanged.
 */
export async function keptIdentity(hosted: Record<string, unknown>, key: string | null, taken: (id: string) => boolean | Promise<boolean>): Promise<FileIdentity | null> {
  const { id, created_at } = hosted;
  if (typeof id !== 'string' || !UUID.test(id) || key === null || (await taken(id))) return null;
  return { id, key, created_at: typeof created_at === 'string' && !Number.isNaN(Date.parse(created_at)) ? created_at : nowIso() };
}

/**
 * Writes a definition into the proxies folder, never over a file there, with its secret values moved aside and its
 * identity claimed for the path, the two together or neither: the secrets are kept first, then the files are written
 * and the identity claimed; a failure there removes the files written and puts the secrets back. The folder is read
 * again before this returns.
 */
export async function writeDefinitionFiles(folder: ProxyFolder, secrets: SecretStore, secretKeys: readonly string[], definition: DefinitionToWrite): Promise<DefinitionFilesWritten> {
  const root = folder.folder;
  if (root === null) throw new ApiProblem(409, 'No proxies folder is chosen: choose one in Settings, under Proxies folder, or start with --proxies DIR');
  const { path, identities, identity } = definition;
  const written: string[] = [];
  let result: DefinitionFilesWritten;
  // The files, their identity and the API's copy taken away: what must succeed with the secrets kept.
  const write = async ({ configuration, moved }: ReturnType<typeof configurationAside>): Promise<DefinitionFilesWritten> => {
    const code = definition.code.map(([name, text]): [string, string] => [name, text.endsWith('\n') ? text : `${text}\n`]);
    // The JSON last: the folder's watcher finds the definition only once its code is there.
    const files: [string, string][] = [...code, [path, `${JSON.stringify(definition.json(configuration), null, 2)}\n`]];
    for (const [name, text] of files) {
      try {
        writeFileAtomic(join(root, name), text, 'create');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ApiProblem(409, `${name} is in the proxies folder already: choose another file name`);
        throw new ApiProblem(507, `${name} could not be written (${(error as NodeJS.ErrnoException).code}): nothing was exported`);
      }
      written.push(name);
    }
    const claimed = identity ? await identities.claim(path, identity) : await identities.of(path);
    try {
      // Last: it takes the API's copy away, from the database and its store's memory, which nothing would put back.
      await definition.commit?.();
    } catch (error) {
      // The files go: the identity claimed for their path goes too, or a later file there would take the id the API's copy still has.
      if (identity) await identities.release(path, claimed.id);
      throw error;
    }
    return { path, files: files.map(([name]) => name), id: claimed.id, kept_identity: identity !== null, moved };
  };
  try {
    // No read of the folder meanwhile: one between the files and the claim would serve them under another identity.
    result = await folder.exclusively(() => secrets.atomically((staged) => configurationAside(definition.configuration, definition.secretsFrom, staged, secretKeys), write));
  } catch (error) {
    for (const name of written) rmSync(join(root, name), { force: true });
    throw error;
  }
  await folder.reload();
  return result;
}
