import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, realpathSync, type Dirent, type Stats } from 'node:fs';
import { dirname, sep } from 'node:path';
import { ApiProblem } from '../server/problem';
import { writeFileAtomic } from '../storage/atomic-file';

/**
 * Files of the collections folder (saved requests, environments), read and written so that no path leaves the folder,
 * links included, no named pipe holds the engine up, and a file is only ever replaced whole.
 */

/** Opens for reading only a file itself: not through a link, and without waiting on a named pipe. */
const READ_ONLY = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export const megabytes = (bytes: number) => `${Math.ceil(bytes / (1024 * 1024))} MB`;
export const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Why a file in the folder is listed without what it should hold. */
export class NotReadable extends Error {}

/** Up to `limit` bytes of an open file of `size` bytes, or null when it holds more (it may have grown since). */
function readUpTo(fd: number, size: number, limit: number): Buffer | null {
  const buffer = Buffer.alloc(Math.min(size, limit) + 1);
  let length = 0;
  for (let read = -1; read !== 0 && length < buffer.length; length += read) read = readSync(fd, buffer, length, buffer.length - length, length);
  return length > limit ? null : buffer.subarray(0, length);
}

/** A folder's entries, or none when it is gone. */
export function entriesIn(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return [];
    throw error;
  }
}

/** An entry's own kind (a link as a link), or null where there is none. */
export function entryAt(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return null;
    throw error;
  }
}

/**
 * A file system's refusal as the client's problem: what happened (`outcome`: what became of the change) and what to
 * do, never the server's paths (a 500 from the workbench repeats its error's message, paths included).
 */
export function fileProblem(error: unknown, outcome: string): ApiProblem {
  const code = codeOf(error);
  if (code === 'ENOSPC' || code === 'EDQUOT') return new ApiProblem(507, `The disk is full: ${outcome}. Free some space, then try again.`);
  if (code === 'EISDIR') return new ApiProblem(409, 'A folder holds that name in the collection: choose another name, or remove the folder outside the app.');
  if (code === 'ENAMETOOLONG') return new ApiProblem(400, 'The name is too long for the file system of the collections folder: choose a shorter one.');
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return new ApiProblem(403, `The collections folder cannot be written (${code}): check its permissions, or choose another folder.`);
  return new ApiProblem(500, `The collections folder could not be changed (${code ?? 'an unexpected error'}).`);
}

/**
 * The text of a file in the folder whose real path is `root`, refused with why (NotReadable): a link out of the folder
 * or to nothing, not a regular file, over `maxBytes` (larger than any `what`: "saved request").
 */
export function readInFolder(root: string, path: string, linked: boolean, maxBytes: number, what: string): string {
  let real = path;
  if (linked) {
    try {
      real = realpathSync(path);
    } catch (error) {
      throw codeOf(error) === 'ENOENT' ? new NotReadable('a link to a file that does not exist') : error;
    }
    if (!real.startsWith(root + sep)) throw new NotReadable('a link that leads outside the collections folder');
  }
  const fd = openSync(real, READ_ONLY);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new NotReadable('not a file (a folder, a named pipe or a device), so it was not read');
    const tooLarge = `larger than any ${what} (${megabytes(maxBytes)} at most), so it was not read`;
    if (stat.size > maxBytes) throw new NotReadable(`${megabytes(stat.size)}, ${tooLarge}`);
    const bytes = readUpTo(fd, stat.size, maxBytes);
    if (!bytes) throw new NotReadable(tooLarge);
    return bytes.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * `path`, or where the link at `path` leads when that is inside `folder`; refused when it leads outside, or nowhere (a
 * link to nothing is followed by a write, which would create its target, wherever that is). `shown` names it.
 */
export function containedIn(folder: string, path: string, shown: string): string {
  if (!entryAt(path)?.isSymbolicLink()) return path;
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') throw new ApiProblem(409, `${shown} is a link to a file that does not exist, which the app does not write through: delete it, or use another name.`);
    throw error;
  }
  if (!real.startsWith(realpathSync(folder) + sep)) throw new ApiProblem(400, `${shown} leads outside the collections folder`);
  return real;
}

export interface FolderWrite {
  overwrite: boolean;
  /** How a problem names the file: `Payments/Charge`. */
  shown: string;
  /** The 409's sentence when the name is taken. */
  taken: string;
  maxBytes: number;
  /** The 413's sentence for a text of `size` (in words, as megabytes gives it). */
  tooLarge: (size: string) => string;
}

/**
 * Writes a file of `folder` whole or not at all: a new one, or over the one of that name when `overwrite` (through a
 * link only where it stays inside).
 */
export function writeInFolder(folder: string, file: string, text: string, options: FolderWrite): void {
  const bytes = Buffer.byteLength(text);
  if (bytes > options.maxBytes) throw new ApiProblem(413, options.tooLarge(megabytes(bytes)));
  const present = entryAt(file) !== null;
  if (present && !options.overwrite) throw new ApiProblem(409, options.taken);
  const target = present ? containedIn(folder, file, options.shown) : file;
  try {
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    writeFileAtomic(target, text, present ? 'replace' : 'create');
  } catch (error) {
    if (codeOf(error) === 'EEXIST') throw new ApiProblem(409, options.taken);
    throw fileProblem(error, present ? 'nothing was saved, and the previous version is kept' : 'nothing was saved');
  }
}
