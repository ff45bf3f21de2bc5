import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, posix, sep } from 'node:path';
import type { ApplicationStore } from '../../access/application-store';
import type { ExpressionEngine } from '../../expressions';
import type { SecretStore } from '../../secrets/secret-store';
import { ApiProblem } from '../../server/problem';
import { dependencyFailure } from '../dependency-check';
import type { ProxyDefinition } from '../proxy-model';
import { parseProxyRequest } from '../proxy-requests';
import { checkDefinition } from '../proxy-routes';
import { checkFileConfiguration } from './file-secrets';

/**
 * One proxy file of the proxies folder (docs/api.md, Proxies as files): the POST /proxies body as JSON, where a code
 * transform may name a `.js` file beside it (`"code_file": "charge.request.js"`, relative to the JSON file's folder)
 * in place of `code`. It is checked as the API checks a proxy, each problem named by its field path.
 */

export const PROXY_FILE_SUFFIX = '.json';
export const CODE_FILE_SUFFIX = '.js';
/** Far above any proxy (its code is at most 50,000 characters): a larger file was not meant as one. */
const MAX_FILE_BYTES = 1024 * 1024;

/** The fields of a proxy file: the POST /proxies body's. */
const FIELDS = new Set([
  'name',
  'destination_url',
  'request_transforms',
  'response_transforms',
  'request_transform',
  'response_transform',
  'application',
  'application_id',
  'configuration',
  'require_auth',
  'disable_detokenization',
  'request_reactor_id',
  'response_reactor_id',
]);

/** A file as read: what it holds and a fingerprint of every byte it is made of (its JSON and its code files). */
export interface ProxyFileRead {
  fingerprint: string;
  outcome: { definition: ProxyDefinition; warnings: string[] } | { problems: string[] };
}

export interface ProxyFileChecks {
  applications: ApplicationStore;
  expressions: ExpressionEngine;
  secrets: SecretStore;
  /** Where node22 code finds its dependencies (`serve --code-dependencies DIR`); null: none. */
  dependenciesDir: string | null;
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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Each transform of a file's JSON with the field path it stands at: `request_transforms[0]`, `response_transform`. */
function transformsOf(json: Record<string, unknown>): { at: string; transform: Record<string, unknown>; put(next: Record<string, unknown>): void }[] {
  const found: ReturnType<typeof transformsOf> = [];
  for (const side of ['request', 'response'] as const) {
    const list = json[`${side}_transforms`];
    if (Array.isArray(list)) {
      list.forEach((transform, i) => {
        if (isObject(transform)) found.push({ at: `${side}_transforms[${i}]`, transform, put: (next) => (list[i] = next) });
      });
    }
    const single = json[`${side}_transform`];
    if (isObject(single)) found.push({ at: `${side}_transform`, transform: single, put: (next) => (json[`${side}_transform`] = next) });
  }
  return found;
}

/** Reads the proxy file at `path` of the folder whose real path is `root`, and checks it as the API checks a proxy. */
export function readProxyFile(root: string, path: string, checks: ProxyFileChecks): ProxyFileRead {
  const hash = createHash('sha256');
  const problems: string[] = [];
  const problem = (field: string, message: string) => problems.push(`${field}: ${message}`);
  const done = (outcome: ProxyFileRead['outcome']): ProxyFileRead => ({ fingerprint: hash.digest('hex'), outcome });

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
  if (!isObject(json)) return done({ problems: ['a proxy file holds one JSON object: the fields of POST /proxies'] });

  for (const field of Object.keys(json)) {
    if (field === 'id' || field === 'key') problem(field, `the engine keeps a file proxy's ${field} (stable across reloads): leave it out of the file`);
    else if (!FIELDS.has(field)) problem(field, 'not a field of a proxy (those of POST /proxies)');
  }

  // Each code file is read into its transform's `code`; an error in that code is then named by the file.
  const codeFiles = new Map<string, string>();
  for (const { at, transform, put } of transformsOf(json)) {
    const file = transform.code_file;
    if (file === undefined) continue;
    const { code_file: _, ...rest } = transform;
    const field = `${at}.code_file`;
    if (typeof file !== 'string' || !file.endsWith(CODE_FILE_SUFFIX)) {
      problem(field, `code_file names a ${CODE_FILE_SUFFIX} file beside the proxy file`);
      continue;
    }
    if (transform.code !== undefined) problem(field, 'give code or code_file, not both');
    if ((transform.type ?? 'code') !== 'code') problem(field, 'code_file is for code transforms only');
    const joined = posix.normalize(posix.join(posix.dirname(path), file.replaceAll('\\', '/')));
    if (isAbsolute(file) || joined.startsWith('../') || joined === '..') {
      problem(field, `${file} is outside the proxies folder: a code file is named relative to the proxy file, inside the folder`);
      continue;
    }
    try {
      const code = readInside(root, joined);
      hash.update(`\0${joined}\0${code}`);
      codeFiles.set(at, file);
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
      const from = field.endsWith('.code') ? codeFiles.get(field.slice(0, -'.code'.length)) : undefined;
      for (const message of messages) problem(from ? `${field}_file` : field, from ? `${from}: ${message}` : message);
    }
  };
  try {
    const definition = parseProxyRequest(json);
    checkDefinition(definition, checks);
    const configuration = checkFileConfiguration(definition.configuration, checks.secrets);
    named(configuration.errors);
    // What the API saves as `failed` (dependency_unavailable) is a problem of the file: its last good version serves.
    const lacking = dependencyFailure(definition, checks.dependenciesDir);
    if (lacking) named(lacking.error_details);
    if (problems.length > 0) return done({ problems });
    return done({ definition, warnings: configuration.warnings });
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    if (error.errors) named(error.errors);
    else problems.push(error.detail ?? error.message);
    return done({ problems });
  }
}
