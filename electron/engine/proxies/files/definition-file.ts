import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, posix, sep } from 'node:path';
import type { SecretStore } from '../../secrets/secret-store';
import { ApiProblem } from '../../server/problem';
import { checkFileConfiguration } from './file-secrets';

/**
 * One definition file of the proxies folder (docs/api.md, Proxies as files; Reactors as files): the body its API's
 * POST takes, as JSON, where code may be a `.js` file beside it (`code_file`, relative to the JSON file's folder) in
 * place of `code`. It is checked as the API checks a body, each problem named by its field path.
 */

export const CODE_FILE_SUFFIX = '.js';
/** Far above any definition (code is at most 50,000 characters): a larger file was not meant as one. */
const MAX_FILE_BYTES = 1024 * 1024;

/** A file as read: what it holds and a fingerprint of every byte it is made of (its JSON and its code files). */
export interface DefinitionFileRead<D> {
  fingerprint: string;
  outcome: { definition: D; warnings: string[] } | { problems: string[] };
}

/** Where a file's JSON may name a code file: the object holding `code_file`, at its field path (`''`: the top). */
export interface CodeSlot {
  at: string;
  holder: Record<string, unknown>;
  put(next: Record<string, unknown>): void;
}

/** What sets one kind of file apart: its API's fields, where its code goes, and its API's own checks. */
export interface DefinitionFileKind<D> {
  /** `proxy`, `reactor`: the words of its problems. */
  noun: string;
  /** The API's body: `POST /proxies`. */
  body: string;
  fields: ReadonlySet<string>;
  /** Fields the engine keeps for a file (its id), which the file leaves out. */
  kept: readonly string[];
  codeSlots(json: Record<string, unknown>): CodeSlot[];
  /**
   * The API's checks (an ApiProblem, its `errors` by field path), then what only a file has: its configuration, to
   * check its secret references, and what its node22 code lacks, by field path (the API saves that `failed`).
   */
  check(json: Record<string, unknown>): { definition: D; configuration: Readonly<Record<string, string>>; lacking: Record<string, string[]> | null };
}

/** Why a file cannot be read as one: its words follow the file's name. */
class Unreadable extends Error {}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;
/** Only a regular file itself (a link is followed by realpath first), never waiting on a named pipe. */
const READ_ONLY = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The text of `path` (relative to the folder, `/` between names), refused when it leads outside `root` (a real path). */
function readInside(root: string, path: string): string {
  let real: string;
  try {
    real = realpathSync(root + sep + path.split('/').join(sep));
  } catch (error) {
    throw new Unreadable(codeOf(error) === 'ENOENT' ? 'does not exist' : `cannot be read (${codeOf(error)})`);
  }
  if (!real.startsWith(root + sep)) throw new Unreadable('leads outside the proxies folder');
  let fd: number;
  try {
    fd = openSync(real, READ_ONLY);
  } catch (error) {
    throw new Unreadable(`cannot be read (${codeOf(error)})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Unreadable('is not a file');
    if (stat.size > MAX_FILE_BYTES) throw new Unreadable('is larger than 1 MB');
    const buffer = Buffer.alloc(stat.size);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) read = readSync(fd, buffer, length, buffer.length - length, length);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads the file of `kind` at `path` of the folder whose real path is `root`, and checks it as its API checks a body. */
export function readDefinitionFile<D>(root: string, path: string, kind: DefinitionFileKind<D>, secrets: SecretStore): DefinitionFileRead<D> {
  const hash = createHash('sha256');
  const problems: string[] = [];
  const problem = (field: string, message: string) => problems.push(`${field}: ${message}`);
  const done = (outcome: DefinitionFileRead<D>['outcome']): DefinitionFileRead<D> => ({ fingerprint: hash.digest('hex'), outcome });

  let text: string;
  try {
    text = readInside(root, path);
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    hash.update(`unreadable:${error.message}`);
    return done({ problems: [`the file ${error.message}`] });
  }
  hash.update(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return done({ problems: [`not valid JSON: ${(error as Error).message}`] });
  }
  if (!isObject(json)) return done({ problems: [`a ${kind.noun} file holds one JSON object: the fields of ${kind.body}`] });

  for (const field of Object.keys(json)) {
    if (kind.kept.includes(field)) problem(field, `the engine keeps a file ${kind.noun}'s ${field} (stable across reloads): leave it out of the file`);
    else if (!kind.fields.has(field)) problem(field, `not a field of a ${kind.noun} (those of ${kind.body})`);
  }

  // Each code file is read into its slot's `code`; an error in that code is then named by the file.
  const codeFiles = new Map<string, string>();
  const fieldAt = (at: string, name: string) => (at === '' ? name : `${at}.${name}`);
  for (const { at, holder, put } of kind.codeSlots(json)) {
    const file = holder.code_file;
    if (file === undefined) continue;
    const { code_file: _, ...rest } = holder;
    const field = fieldAt(at, 'code_file');
    if (typeof file !== 'string' || !file.endsWith(CODE_FILE_SUFFIX)) {
      problem(field, `code_file names a ${CODE_FILE_SUFFIX} file beside the ${kind.noun} file`);
      continue;
    }
    if (holder.code !== undefined) problem(field, 'give code or code_file, not both');
    if ((holder.type ?? 'code') !== 'code') problem(field, 'code_file is for code transforms only');
    const joined = posix.normalize(posix.join(posix.dirname(path), file.replaceAll('\\', '/')));
    if (isAbsolute(file) || joined.startsWith('../') || joined === '..') {
      problem(field, `${file} is outside the proxies folder: a code file is named relative to the ${kind.noun} file, inside the folder`);
      continue;
    }
    try {
      const code = readInside(root, joined);
      hash.update(`\0${joined}\0${code}`);
      codeFiles.set(fieldAt(at, 'code'), file);
      put({ ...rest, code });
    } catch (error) {
      if (!(error instanceof Unreadable)) throw error;
      hash.update(`\0${joined}\0unreadable:${error.message}`);
      problem(field, `${file} ${error.message}`);
    }
  }
  if (problems.length > 0) return done({ problems });

  const named = (errors: Record<string, string[]>) => {
    for (const [field, messages] of Object.entries(errors)) {
      const from = codeFiles.get(field);
      for (const message of messages) problem(from ? `${field}_file` : field, from ? `${from}: ${message}` : message);
    }
  };
  try {
    const { definition, configuration, lacking } = kind.check(json);
    const checked = checkFileConfiguration(configuration, secrets);
    named(checked.errors);
    // What the API saves as `failed` (dependency_unavailable) is a problem of the file: its last good version serves.
    if (lacking) named(lacking);
    if (problems.length > 0) return done({ problems });
    return done({ definition, warnings: checked.warnings });
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    if (error.errors) named(error.errors);
    else problems.push(error.detail ?? error.message);
    return done({ problems });
  }
}
