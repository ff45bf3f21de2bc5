import { realpathSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { REFERENCE_NAME, REFERENCE_NAME_RULE, referencesIn, referenceTo } from '../../../shared/secrets/references';
import type { EnvironmentVariable } from '../../../shared/workbench/environment-contract';
import { codeOf, containedIn, entriesIn, entryAt, fileProblem, NotReadable, readInFolder, writeInFolder } from '../collections/folder-files';
import { checkName, RESERVED_FOLDER } from '../collections/request-names';
import { ApiProblem } from '../server/problem';
import { syncFolder } from '../storage/atomic-file';

/** One environment a file: `<folder>/environments/<name>.env.json`. */
export const ENVIRONMENT_SUFFIX = '.env.json';
/** An environment is a page of settings, not a body: far below what a saved request may take. */
const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_VARIABLES = 500;
/** A value may stand in for a body's part, so it may be long; a header's is bounded again as it is sent. */
export const MAX_VALUE_LENGTH = 64 * 1024;

const byName = new Intl.Collator().compare;

/**
 * The file: its version, and its variables by name, each value as written or, for a secret one, the reference to the
 * secret that holds it (`${secret:staging-api-key}`): the file never holds a secret's value.
 */
const environmentFileSchema = z.strictObject({
  version: z.literal(1),
  variables: z
    .record(z.string().regex(REFERENCE_NAME, `is not a variable name: ${REFERENCE_NAME_RULE}`), z.string().max(MAX_VALUE_LENGTH))
    .refine((variables) => Object.keys(variables).length <= MAX_VARIABLES, `An environment holds at most ${MAX_VARIABLES} variables`),
});

/** The secret a value refers to when the value is that one reference and nothing else; null for any other value. */
function secretOf(value: string): string | null {
  const [reference] = referencesIn(value);
  return reference?.kind === 'secret' && reference.valid && reference.from === 0 && reference.to === value.length ? reference.name : null;
}

/** A variable as its file holds it: a value, or (secret) the name of the secret holding it. */
const variableOf = ([name, written]: [string, string]): EnvironmentVariable => {
  const secret = secretOf(written);
  return secret === null ? { name, value: written, secret: null } : { name, value: null, secret };
};

/**
 * The file's text: readable JSON with the variables sorted by name, one a line, so a change to one variable is a
 * change to one line, and saving the same variables writes the same bytes.
 */
export function environmentFileText(variables: readonly EnvironmentVariable[]): string {
  const sorted = [...variables].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const written = Object.fromEntries(sorted.map(({ name, value, secret }) => [name, secret === null ? value! : referenceTo('secret', secret)]));
  return `${JSON.stringify({ version: 1, variables: written }, null, 2)}\n`;
}

/** An environment as listed: its variables, or why its file is not an environment. */
export interface ListedEnvironment {
  name: string;
  variables: EnvironmentVariable[] | null;
  problem: string | null;
}

/**
 * The named environments of a collections folder (local, staging, the hosted test tenant, …), each a file of
 * variables beside the collections, read and written with the folder's safety (collections/folder-files.ts). `folder`
 * is read at each call: the collections folder may change while the engine runs.
 */
export class EnvironmentStore {
  constructor(private readonly folder: () => string) {}

  private place(): string {
    return join(this.folder(), RESERVED_FOLDER);
  }

  /** The file of an environment, checked to stay inside the folder. */
  private fileOf(name: string): string {
    checkName('An environment', name);
    return join(containedIn(this.folder(), this.place(), RESERVED_FOLDER), name + ENVIRONMENT_SUFFIX);
  }

  list(): ListedEnvironment[] {
    const folder = this.folder();
    const root = realpathSync(folder);
    const place = this.place();
    if (!entryAt(place)) return [];
    // The environments' folder itself may be a link: followed only where it stays inside.
    let real: string;
    try {
      real = containedIn(folder, place, RESERVED_FOLDER);
    } catch (error) {
      if (error instanceof ApiProblem) return [];
      throw error;
    }
    return entriesIn(real)
      .filter((entry) => entry.name.endsWith(ENVIRONMENT_SUFFIX) && !entry.name.startsWith('.'))
      .map((entry) => this.listed(root, join(real, entry.name), entry.name.slice(0, -ENVIRONMENT_SUFFIX.length), entry.isSymbolicLink()))
      .filter((listed): listed is ListedEnvironment => listed !== null)
      .sort((a, b) => byName(a.name, b.name));
  }

  private listed(root: string, path: string, name: string, linked: boolean): ListedEnvironment | null {
    try {
      checkName('An environment', name);
      return { name, variables: this.parse(readInFolder(root, path, linked, MAX_FILE_BYTES, 'environment')), problem: null };
    } catch (error) {
      if (error instanceof ApiProblem || error instanceof NotReadable) return { name, variables: null, problem: error.message };
      return codeOf(error) === 'ENOENT' ? null : { name, variables: null, problem: `could not be read (${codeOf(error) ?? 'an unexpected error'})` };
    }
  }

  private parse(text: string): EnvironmentVariable[] {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new NotReadable((error as Error).message);
    }
    const parsed = environmentFileSchema.safeParse(json);
    if (!parsed.success) throw new NotReadable(parsed.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join('; '));
    return Object.entries(parsed.data.variables).map(variableOf);
  }

  /** One environment's variables; a 404 when the folder has none of that name, a 409 saying why when its file is not one. */
  read(name: string): EnvironmentVariable[] {
    const file = this.fileOf(name);
    try {
      return this.parse(readInFolder(realpathSync(this.folder()), file, entryAt(file)?.isSymbolicLink() ?? false, MAX_FILE_BYTES, 'environment'));
    } catch (error) {
      if (codeOf(error) === 'ENOENT') throw new ApiProblem(404, `There is no environment named “${name}” in the collections folder`);
      if (error instanceof NotReadable) throw new ApiProblem(409, `The file of the environment “${name}” is not an environment: ${error.message}. Fix it in the folder, or delete it.`);
      throw error;
    }
  }

  has(name: string): boolean {
    return entryAt(this.fileOf(name)) !== null;
  }

  /** Writes an environment's file whole (a new one, or over the one of that name when `overwrite`). */
  write(name: string, variables: readonly EnvironmentVariable[], overwrite: boolean): void {
    writeInFolder(this.folder(), this.fileOf(name), environmentFileText(variables), {
      overwrite,
      shown: `${RESERVED_FOLDER}/${name}`,
      taken: `There is an environment named “${name}” already`,
      maxBytes: MAX_FILE_BYTES,
      tooLarge: (size) => `The environment would be a ${size} file, over the 1 MB an environment may take: shorten its values.`,
    });
  }

  /** Renames an environment's file; never over another one. */
  rename(from: string, to: string): void {
    const source = this.fileOf(from);
    const target = this.fileOf(to);
    if (!entryAt(source)) throw new ApiProblem(404, `There is no environment named “${from}” in the collections folder`);
    if (entryAt(target)) throw new ApiProblem(409, `There is an environment named “${to}” already`);
    try {
      renameSync(source, target);
      syncFolder(this.place());
    } catch (error) {
      throw fileProblem(error, 'the environment was not renamed');
    }
  }

  /** Deletes an environment's file; a link goes, never what it leads to. */
  delete(name: string): void {
    const file = this.fileOf(name);
    if (!entryAt(file)) throw new ApiProblem(404, `There is no environment named “${name}” in the collections folder`);
    try {
      rmSync(file);
    } catch (error) {
      throw fileProblem(error, 'the environment was not deleted');
    }
  }
}
