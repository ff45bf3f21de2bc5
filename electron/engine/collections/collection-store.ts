import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, rmdirSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { savedRequestSchema, type CollectionsView, type SavedRequest } from '../../../shared/workbench/contract';
import { ApiProblem } from '../server/problem';

/** One request a file, named after it: `<folder>/<collection>/<name>.request.json`. */
const SUFFIX = '.request.json';
/** Changes on disk arrive as bursts of events (an editor's save is several): one reload after they settle. */
const SETTLE_MS = 100;

/**
 * A collection's or a request's name: what a user would call it, and a safe file name everywhere (no separators,
 * no leading dot, none of the names Windows reserves).
 */
const NAME = /^(?!\.)[^/\\:*?"<>|]{1,100}$/;
/** Control characters, which no file name should hold (tested apart: the linter refuses them in a pattern). */
const hasControl = (name: string) => [...name].some((char) => char.charCodeAt(0) < 0x20);
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;

function checkName(what: string, name: string): void {
  if (!NAME.test(name) || hasControl(name) || RESERVED.test(name) || name.endsWith('.') || name.endsWith(' ')) {
    throw new ApiProblem(400, `${what} "${name}" cannot be a file name: use letters, digits, spaces and - _ ( ), not / \\ : * ? " < > |, and no leading dot`);
  }
}

export interface CollectionStoreEvents {
  /** The folder changed, in the app or outside it (an editor, git): the collections as they are now. */
  change: [CollectionsView];
}

/**
 * Saved requests as plain files in one folder, so a team can keep them in git beside their code: a folder per
 * collection, a readable JSON file per request. Every path is checked to stay inside the folder, links included.
 */
export class CollectionStore extends EventEmitter<CollectionStoreEvents> {
  private watcher: FSWatcher | null = null;
  private settle: NodeJS.Timeout | null = null;

  constructor(readonly folder: string) {
    super();
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  }

  /** Every collection and its requests, by name; a file that is not a saved request is listed with why. */
  list(): CollectionsView {
    const collections = readdirSync(this.folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => ({ name: entry.name, requests: this.requestsIn(entry.name) }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { folder: this.folder, collections };
  }

  private requestsIn(collection: string): CollectionsView['collections'][number]['requests'] {
    return readdirSync(join(this.folder, collection))
      .filter((file) => file.endsWith(SUFFIX))
      .sort((a, b) => a.localeCompare(b))
      .map((file) => {
        const name = file.slice(0, -SUFFIX.length);
        try {
          const parsed = savedRequestSchema.safeParse(JSON.parse(readFileSync(this.inside(collection, name), 'utf8')));
          if (parsed.success) return { name, request: parsed.data, problem: null };
          return { name, request: null, problem: parsed.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join('; ') };
        } catch (error) {
          return { name, request: null, problem: (error as Error).message };
        }
      });
  }

  /** The file of a request, refused if it would leave the folder (a name or a link that points out). */
  private inside(collection: string, name?: string): string {
    checkName('A collection', collection);
    if (name !== undefined) checkName('A request', name);
    const path = resolve(this.folder, collection, ...(name === undefined ? [] : [name + SUFFIX]));
    const root = realpathSync(this.folder);
    const real = existsSync(path) ? realpathSync(path) : resolve(root, relative(this.folder, path));
    if (real !== root && !real.startsWith(root + sep)) throw new ApiProblem(400, `${collection}${name ? `/${name}` : ''} leads outside the collections folder`);
    return path;
  }

  /** Writes a request's file (a new one, or over the same name when `overwrite`). */
  save(collection: string, name: string, request: SavedRequest, overwrite: boolean): void {
    const file = this.inside(collection, name);
    if (!overwrite && existsSync(file)) throw new ApiProblem(409, `${collection} already has a request named "${name}"`);
    mkdirSync(this.inside(collection), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify(request, null, 2)}\n`, { mode: 0o600 });
  }

  /** Renames a request, or moves it to another collection (made if new); never over an existing one. */
  move(from: { collection: string; name: string }, to: { collection: string; name: string }): void {
    const source = this.inside(from.collection, from.name);
    const target = this.inside(to.collection, to.name);
    if (!existsSync(source)) throw new ApiProblem(404, `${from.collection} has no request named "${from.name}"`);
    if (existsSync(target)) throw new ApiProblem(409, `${to.collection} already has a request named "${to.name}"`);
    mkdirSync(this.inside(to.collection), { recursive: true, mode: 0o700 });
    renameSync(source, target);
    this.dropIfEmpty(from.collection);
  }

  delete(collection: string, name: string): void {
    const file = this.inside(collection, name);
    if (!existsSync(file)) throw new ApiProblem(404, `${collection} has no request named "${name}"`);
    rmSync(file);
    this.dropIfEmpty(collection);
  }

  private dropIfEmpty(collection: string): void {
    const folder = this.inside(collection);
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  }

  /** Tells listeners of every change to the folder, made here or outside, once a burst of them settles. */
  watch(): void {
    this.watcher ??= watch(this.folder, { recursive: true }, () => {
      if (this.settle) clearTimeout(this.settle);
      this.settle = setTimeout(() => this.emit('change', this.list()), SETTLE_MS).unref();
    });
    // A folder deleted under the app must not take the engine down; the page just stops hearing changes.
    this.watcher.on('error', () => this.close());
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.settle) clearTimeout(this.settle);
  }

  /** Removes the folder when nothing was saved in it (a temporary one the engine made for an in-memory vault). */
  removeIfEmpty(): void {
    if (readdirSync(this.folder).length === 0) rmdirSync(this.folder);
  }
}
