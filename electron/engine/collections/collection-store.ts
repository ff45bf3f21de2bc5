import { EventEmitter } from 'node:events';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  watch,
  type Dirent,
  type FSWatcher,
  type Stats,
} from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { dirname, join, sep } from 'node:path';
import { savedRequestSchema, type CollectionsView, type SavedRequest } from '../../../shared/workbench/contract';
import { ApiProblem } from '../server/problem';
import { syncFolder, writeFileAtomic } from '../storage/atomic-file';
import { checkName, SUFFIX } from './request-names';

/** Changes on disk arrive as bursts of events (an editor's save is several): one reload after they settle. */
const SETTLE_MS = 100;
/**
 * The largest file a saved request may be: its body is at most 1 MiB of text (the contract's limit), up to 3 MiB as
 * UTF-8, with room for its headers. Saves refuse larger ones, so a larger file was not written here and is not read.
 */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** How long the listing reads files before it gives the engine's other requests their turn. */
const SLICE_MS = 20;
/** Opens for reading only a file itself: not through a link, and without waiting on a named pipe. */
const READ_ONLY = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

type Place = { collection: string; name: string };
type Listed = CollectionsView['collections'][number]['requests'][number];

const byName = new Intl.Collator().compare;
const megabytes = (bytes: number) => `${Math.ceil(bytes / (1024 * 1024))} MB`;
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Why a file in the folder is listed without a request. */
class NotARequest extends Error {}

/** Up to `limit` bytes of an open file of `size` bytes, or null when it holds more (it may have grown since). */
function readUpTo(fd: number, size: number, limit: number): Buffer | null {
  const buffer = Buffer.alloc(Math.min(size, limit) + 1);
  let length = 0;
  for (let read = -1; read !== 0 && length < buffer.length; length += read) read = readSync(fd, buffer, length, buffer.length - length, length);
  return length > limit ? null : buffer.subarray(0, length);
}

/** A folder's entries, or none when it is gone. */
function entriesIn(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return [];
    throw error;
  }
}

/** An entry's own kind (a link as a link), or null where there is none. */
function entryAt(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return null;
    throw error;
  }
}

/**
 * A file system's refusal as the client's problem: what happened (`outcome`: what became of the request) and what to
 * do, never the server's paths (a 500 from the workbench repeats its error's message, paths included).
 */
function fileProblem(error: unknown, outcome: string): ApiProblem {
  const code = codeOf(error);
  if (code === 'ENOSPC' || code === 'EDQUOT') return new ApiProblem(507, `The disk is full: ${outcome}. Free some space, then try again.`);
  if (code === 'EISDIR') return new ApiProblem(409, 'A folder holds that name in the collection: choose another name, or remove the folder outside the app.');
  if (code === 'ENAMETOOLONG') return new ApiProblem(400, 'The name is too long for the file system of the collections folder: choose a shorter one.');
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return new ApiProblem(403, `The collections folder cannot be written (${code}): check its permissions, or choose another folder.`);
  return new ApiProblem(500, `The collections folder could not be changed (${code ?? 'an unexpected error'}).`);
}

export interface CollectionStoreEvents {
  /** The folder changed, in the app or outside it (an editor, git): the collections as they are now. */
  change: [CollectionsView];
}

/**
 * Saved requests as plain files in one folder, so a team can keep them in git beside their code: a folder per
 * collection, a readable JSON file per request. Every path is checked to stay inside the folder, links included, and
 * a file is only ever replaced whole.
 */
export class CollectionStore extends EventEmitter<CollectionStoreEvents> {
  private watcher: FSWatcher | null = null;
  private settle: NodeJS.Timeout | null = null;
  /** The reload under way, and whether the folder changed again since it began. */
  private reloading: Promise<void> | null = null;
  private changedAgain = false;

  constructor(readonly folder: string) {
    super();
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  }

  /**
   * Every collection and its requests, by name; a file that is not a saved request is listed with why. Files are read
   * in slices of SLICE_MS with the event loop's turn between them, so a large folder never holds up other clients.
   */
  async list(): Promise<CollectionsView> {
    const root = realpathSync(this.folder);
    let sliceEnd = performance.now() + SLICE_MS;
    const names = readdirSync(this.folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort(byName);
    const collections = [];
    for (const collection of names) {
      // Other calls run between slices: a collection or a file gone meanwhile is left out, as if listed just after.
      const files = entriesIn(join(this.folder, collection))
        .filter((entry) => entry.name.endsWith(SUFFIX))
        .sort((a, b) => byName(a.name, b.name));
      const requests: Listed[] = [];
      for (const file of files) {
        if (performance.now() > sliceEnd) {
          await nextTurn();
          sliceEnd = performance.now() + SLICE_MS;
        }
        const listed = this.listed(root, collection, file.name.slice(0, -SUFFIX.length), file.isSymbolicLink());
        if (listed) requests.push(listed);
      }
      if (files.length > 0 || entryAt(join(this.folder, collection))) collections.push({ name: collection, requests });
    }
    return { folder: this.folder, collections };
  }

  /** A file as listed: its request, or why it has none; null when it is gone. */
  private listed(root: string, collection: string, name: string, linked: boolean): Listed | null {
    try {
      return { name, request: this.readRequest(root, collection, name, linked), problem: null };
    } catch (error) {
      if (error instanceof ApiProblem || error instanceof NotARequest) return { name, request: null, problem: error.message };
      return codeOf(error) === 'ENOENT' ? null : { name, request: null, problem: `could not be read (${codeOf(error) ?? 'an unexpected error'})` };
    }
  }

  /** One request's file, refused with why: a name no file should have, a link out, too large, not a file, not a request. */
  private readRequest(root: string, collection: string, name: string, linked: boolean): SavedRequest {
    checkName('A collection', collection);
    checkName('A request', name);
    let path = join(this.folder, collection, name + SUFFIX);
    if (linked) {
      try {
        path = realpathSync(path);
      } catch (error) {
        throw codeOf(error) === 'ENOENT' ? new NotARequest('a link to a file that does not exist') : error;
      }
      if (!path.startsWith(root + sep)) throw new NotARequest('a link that leads outside the collections folder');
    }
    const fd = openSync(path, READ_ONLY);
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new NotARequest('not a file (a folder, a named pipe or a device), so it was not read');
      const tooLarge = `larger than any saved request (${megabytes(MAX_FILE_BYTES)} at most), so it was not read`;
      if (stat.size > MAX_FILE_BYTES) throw new NotARequest(`${megabytes(stat.size)}, ${tooLarge}`);
      const bytes = readUpTo(fd, stat.size, MAX_FILE_BYTES);
      if (!bytes) throw new NotARequest(tooLarge);
      const parsed = savedRequestSchema.safeParse(JSON.parse(bytes.toString('utf8')));
      if (parsed.success) return parsed.data;
      throw new NotARequest(parsed.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join('; '));
    } catch (error) {
      if (error instanceof SyntaxError) throw new NotARequest(error.message);
      throw error;
    } finally {
      closeSync(fd);
    }
  }

  /** A collection's folder, checked to be inside: by its name, and where it is a link, by where the link leads. */
  private collectionFolder(collection: string): string {
    checkName('A collection', collection);
    return this.contained(join(this.folder, collection), collection);
  }

  /** The file of a request, checked like its collection; a link there is left to each caller. */
  private requestFile({ collection, name }: Place): string {
    const folder = this.collectionFolder(collection);
    checkName('A request', name);
    return join(folder, name + SUFFIX);
  }

  /**
   * `path`, or where the link at `path` leads when that is inside the folder; refused when it leads outside, or
   * nowhere (a link to nothing is followed by a write, which would create its target, wherever that is).
   */
  private contained(path: string, shown: string): string {
    if (!entryAt(path)?.isSymbolicLink()) return path;
    let real: string;
    try {
      real = realpathSync(path);
    } catch (error) {
      if (codeOf(error) === 'ENOENT') throw new ApiProblem(409, `${shown} is a link to a file that does not exist, which the app does not write through: delete it, or use another name.`);
      throw error;
    }
    if (!real.startsWith(realpathSync(this.folder) + sep)) throw new ApiProblem(400, `${shown} leads outside the collections folder`);
    return real;
  }

  /** Writes a request's file (a new one, or over the same name when `overwrite`), whole or not at all. */
  save(collection: string, name: string, request: SavedRequest, overwrite: boolean): void {
    const file = this.requestFile({ collection, name });
    const text = `${JSON.stringify(request, null, 2)}\n`;
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_FILE_BYTES) {
      throw new ApiProblem(413, `The request would be a ${megabytes(bytes)} file, over the ${megabytes(MAX_FILE_BYTES)} a saved request may take: shorten its body or headers.`);
    }
    const present = entryAt(file) !== null;
    if (present && !overwrite) throw new ApiProblem(409, `${collection} already has a request named "${name}"`);
    const target = present ? this.contained(file, `${collection}/${name}`) : file;
    try {
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileAtomic(target, text, present ? 'replace' : 'create');
    } catch (error) {
      if (codeOf(error) === 'EEXIST') throw new ApiProblem(409, `${collection} already has a request named "${name}"`);
      throw fileProblem(error, present ? 'nothing was saved, and the previous version is kept' : 'nothing was saved');
    }
  }

  /** Renames a request, or moves it to another collection (made if new); never over an existing one, link or file. */
  move(from: Place, to: Place): void {
    const source = this.requestFile(from);
    const target = this.requestFile(to);
    if (!entryAt(source)) throw new ApiProblem(404, `${from.collection} has no request named "${from.name}"`);
    // A link moves as it is, and must lead somewhere inside wherever it goes.
    this.contained(source, `${from.collection}/${from.name}`);
    if (entryAt(target)) throw new ApiProblem(409, `${to.collection} already has a request named "${to.name}"`);
    try {
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      renameSync(source, target);
      syncFolder(dirname(target));
      syncFolder(dirname(source));
    } catch (error) {
      throw fileProblem(error, 'the request was not moved');
    }
    this.dropIfEmpty(from.collection);
  }

  /** Deletes a request's file; a link goes, never what it leads to. */
  delete(collection: string, name: string): void {
    const file = this.requestFile({ collection, name });
    const entry = entryAt(file);
    if (!entry) throw new ApiProblem(404, `${collection} has no request named "${name}"`);
    if (entry.isDirectory()) throw new ApiProblem(409, `${collection}/${name} is a folder, not a saved request: remove it outside the app`);
    try {
      rmSync(file);
    } catch (error) {
      throw fileProblem(error, 'the request was not deleted');
    }
    this.dropIfEmpty(collection);
  }

  private dropIfEmpty(collection: string): void {
    const folder = this.collectionFolder(collection);
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  }

  /** Tells listeners of every change to the folder, made here or outside, once a burst of them settles. */
  watch(): void {
    this.watcher ??= watch(this.folder, { recursive: true }, () => {
      if (this.settle) clearTimeout(this.settle);
      this.settle = setTimeout(() => this.reload(), SETTLE_MS).unref();
    });
    // A folder deleted under the app must not take the engine down; the page just stops hearing changes.
    this.watcher.on('error', () => this.close());
  }

  /** Lists the folder for the listeners; a change during a reload makes one more after it, never two at once. */
  private reload(): void {
    if (this.reloading) {
      this.changedAgain = true;
      return;
    }
    this.reloading = this.list()
      .then(
        (view) => {
          if (this.watcher) this.emit('change', view);
        },
        // The folder went away or cannot be read: the next change, if any, tries again.
        () => undefined,
      )
      .finally(() => {
        this.reloading = null;
        if (this.changedAgain && this.watcher) {
          this.changedAgain = false;
          this.reload();
        }
      });
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    this.changedAgain = false;
    if (this.settle) clearTimeout(this.settle);
  }

  /** Removes the folder when nothing was saved in it (a temporary one the engine made for an in-memory vault). */
  removeIfEmpty(): void {
    if (readdirSync(this.folder).length === 0) rmdirSync(this.folder);
  }
}
