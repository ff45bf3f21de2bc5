import { EventEmitter } from 'node:events';
import { mkdirSync, readdirSync, realpathSync, renameSync, rmdirSync, rmSync, watch, type FSWatcher } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { dirname, join } from 'node:path';
import type { CollectionsView, SavedRequest } from '../../../shared/workbench/collection-contract';
import { ApiProblem } from '../server/problem';
import { syncFolder, writeFileAtomic } from '../storage/atomic-file';
import { codeOf, containedIn, entriesIn, entryAt, fileProblem, NotReadable, readInFolder, writeInFolder } from './folder-files';
import { readRequestFile, requestFileText } from './request-file';
import { checkName, isReserved, RESERVED_FOLDER, SUFFIX } from './request-names';

/** Changes on disk arrive as bursts of events (an editor's save is several): one reload after they settle. */
const SETTLE_MS = 100;
/**
 * The largest file a saved request may be: its body is at most 1 MiB of text (the contract's limit), up to 3 MiB as
 * UTF-8, with room for its headers. Saves refuse larger ones, so a larger file was not written here and is not read.
 */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** How long the listing reads files before it gives the engine's other requests their turn. */
const SLICE_MS = 20;

type Place = { collection: string; name: string };
type Listed = CollectionsView['collections'][number]['requests'][number];

const byName = new Intl.Collator().compare;

/** Why a file in a collection is listed without a request: the folder's own reasons, and what is not a request. */
class NotARequest extends NotReadable {}

export interface CollectionStoreEvents {
  /** The folder changed, in the app or outside it (an editor, git): the collections as they are now. */
  change: [CollectionsView];
}

/**
 * Saved requests as plain files in one folder, so a team can keep them in git beside their code: a folder per
 * collection, a readable JSON file per request. Every path is checked to stay inside the folder, links included, and
 * a file is only ever replaced whole. The folder may change while the engine runs (Settings); `environments/` in it
 * holds the environments, not a collection.
 */
export class CollectionStore extends EventEmitter<CollectionStoreEvents> {
  private watcher: FSWatcher | null = null;
  private settle: NodeJS.Timeout | null = null;
  /** The reload under way, and whether the folder changed again since it began. */
  private reloading: Promise<void> | null = null;
  private changedAgain = false;
  private current: string;

  constructor(folder: string) {
    super();
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    this.current = folder;
  }

  get folder(): string {
    return this.current;
  }

  /** Keeps the saved requests in another folder from now on (made if new); whoever listens hears its requests. */
  relocate(folder: string): void {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const watching = this.watcher !== null;
    this.close();
    this.current = folder;
    if (!watching) return;
    this.watch();
    this.reload();
  }

  /**
   * Every collection and its requests, by name; a file that is not a saved request is listed with why. Files are read
   * in slices of SLICE_MS with the event loop's turn between them, so a large folder never holds up other clients.
   */
  async list(): Promise<CollectionsView> {
    const folder = this.folder;
    const root = realpathSync(folder);
    let sliceEnd = performance.now() + SLICE_MS;
    const names = readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort(byName);
    const collections = [];
    for (const collection of names) {
      // Other calls run between slices: a collection or a file gone meanwhile is left out, as if listed just after.
      const files = entriesIn(join(folder, collection))
        .filter((entry) => entry.name.endsWith(SUFFIX))
        .sort((a, b) => byName(a.name, b.name));
      const reserved = isReserved(collection);
      // The environments' folder is no collection, unless requests were saved in it before it was: they are listed, to move out.
      if (reserved && files.length === 0) continue;
      const requests: Listed[] = [];
      for (const file of files) {
        if (performance.now() > sliceEnd) {
          await nextTurn();
          sliceEnd = performance.now() + SLICE_MS;
        }
        const name = file.name.slice(0, -SUFFIX.length);
        const listed = reserved ? { name, request: null, problem: `in “${RESERVED_FOLDER}”, the folder of the environments: move it to another collection` } : this.listed(root, collection, name, file.isSymbolicLink());
        if (listed) requests.push(listed);
      }
      if (files.length > 0 || entryAt(join(folder, collection))) collections.push({ name: collection, requests });
    }
    return { folder, collections };
  }

  /** A file as listed: its request and the application it names, or why it has none; null when it is gone. */
  private listed(root: string, collection: string, name: string, linked: boolean): Listed | null {
    try {
      const { request, send_as } = this.readRequest(root, collection, name, linked);
      return { name, request, problem: null, ...(send_as !== null && { send_as: { name: send_as, application_id: null } }) };
    } catch (error) {
      if (error instanceof ApiProblem || error instanceof NotReadable) return { name, request: null, problem: error.message };
      return codeOf(error) === 'ENOENT' ? null : { name, request: null, problem: `could not be read (${codeOf(error) ?? 'an unexpected error'})` };
    }
  }

  /** One request's file, refused with why: a name no file should have, a link out, too large, not a file, not a request. */
  private readRequest(root: string, collection: string, name: string, linked: boolean) {
    checkName('A collection', collection);
    checkName('A request', name);
    const text = readInFolder(root, join(this.folder, collection, name + SUFFIX), linked, MAX_FILE_BYTES, 'saved request');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new NotARequest((error as Error).message);
    }
    const read = readRequestFile(json);
    if ('problem' in read) throw new NotARequest(read.problem);
    return read.file;
  }

  /** A collection's folder, checked to be inside: by its name, and where it is a link, by where the link leads. */
  private collectionFolder(collection: string): string {
    checkName('A collection', collection);
    return containedIn(this.folder, join(this.folder, collection), collection);
  }

  /** The file of a request, checked like its collection; a link there is left to each caller. */
  private requestFile({ collection, name }: Place): string {
    const folder = this.collectionFolder(collection);
    checkName('A request', name);
    return join(folder, name + SUFFIX);
  }

  /**
   * Writes a request's file (a new one, or over the same name when `overwrite`), whole or not at all, in the current
   * format, with the application it is sent as (by name; null: none).
   */
  save(collection: string, name: string, request: SavedRequest, overwrite: boolean, sendAs: string | null = null): void {
    refuseReserved(collection);
    writeInFolder(this.folder, this.requestFile({ collection, name }), requestFileText(request, sendAs), {
      overwrite,
      shown: `${collection}/${name}`,
      taken: `${collection} already has a request named "${name}"`,
      maxBytes: MAX_FILE_BYTES,
      tooLarge: (size) => `The request would be a ${size} file, over the 4 MB a saved request may take: shorten its body or headers.`,
    });
  }

  /**
   * Saves several requests (an import) all or none: before each write the file's bytes are kept, and when one write
   * fails every file written before it is put back as it was, or removed where there was none.
   */
  saveAll(requests: readonly { collection: string; name: string; request: SavedRequest; sendAs: string | null }[], overwrite: boolean): void {
    const root = realpathSync(this.folder);
    const done: { collection: string; name: string; before: string | null }[] = [];
    try {
      for (const { collection, name, request, sendAs } of requests) {
        const file = this.requestFile({ collection, name });
        const entry = entryAt(file);
        let before: string | null = null;
        try {
          if (entry) before = readInFolder(root, file, entry.isSymbolicLink(), MAX_FILE_BYTES, 'saved request');
        } catch (error) {
          if (error instanceof NotReadable) throw new ApiProblem(409, `${collection}/${name} is ${error.message}, which an import does not replace: remove it outside the app`);
          throw error;
        }
        this.save(collection, name, request, overwrite, sendAs);
        done.push({ collection, name, before });
      }
    } catch (error) {
      // Best effort: what cannot be put back (the disk that refused the write may refuse this too) stays as written.
      for (const { collection, name, before } of done.reverse()) {
        try {
          if (before === null) this.delete(collection, name);
          else writeFileAtomic(containedIn(this.folder, this.requestFile({ collection, name }), name), before, 'replace');
        } catch {
          continue;
        }
      }
      throw error;
    }
  }

  /** Whether a request of that name is in the collection (a file, or a link, whatever it leads to). */
  has(collection: string, name: string): boolean {
    return entryAt(this.requestFile({ collection, name })) !== null;
  }

  /** Renames a request, or moves it to another collection (made if new); never over an existing one, link or file. */
  move(from: Place, to: Place): void {
    refuseReserved(to.collection);
    const source = this.requestFile(from);
    const target = this.requestFile(to);
    if (!entryAt(source)) throw new ApiProblem(404, `${from.collection} has no request named "${from.name}"`);
    // A link moves as it is, and must lead somewhere inside wherever it goes.
    containedIn(this.folder, source, `${from.collection}/${from.name}`);
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
    // The environments' folder stays: it holds more than requests.
    if (isReserved(collection)) return;
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
          // A listing of the folder the store has just left is no news.
          if (this.watcher && view.folder === this.folder) this.emit('change', view);
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
}

/** A request is never saved or moved into the environments' folder. */
function refuseReserved(collection: string): void {
  if (isReserved(collection)) throw new ApiProblem(400, `“${RESERVED_FOLDER}” is the folder of the environments, not a collection: choose another name`);
}
