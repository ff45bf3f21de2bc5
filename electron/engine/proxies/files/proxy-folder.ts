import { type FSWatcher, readdirSync, realpathSync, watch } from 'node:fs';
import { relative, sep } from 'node:path';
import { nowIso } from '../../clock';
import type { SecretStore } from '../../secrets/secret-store';
import { type DefinitionFileKind, type DefinitionFileRead, readDefinitionFile } from './definition-file';
import type { FileIdentities, FileIdentity } from './file-identities';

/** An editor's save is a burst of events (a temporary file, a rename, a chmod): one reload once they settle. */
const SETTLE_MS = 40;
/** A folder that never settles (a build writing into it) is still reloaded this often. */
const MAX_WAIT_MS = 200;
/** How often a folder gone (or never there) is looked for again. */
const RETRY_MS = 1000;

/** What a file serves, as its kind's store holds it. */
export interface Served {
  id: string;
  name: string;
}

/**
 * One kind of file the folder serves: which files are its (by how their names end), how one is read, and how what it
 * defines is put into (and taken out of) its store, with the identity the engine keeps for its path.
 */
export interface FolderKind<D = unknown> {
  kind: 'proxy' | 'reactor';
  /** `.reactor.json`; the first kind whose suffix a name ends with takes the file. */
  suffix: string;
  file: DefinitionFileKind<D>;
  identities: FileIdentities;
  /** What `definition` serves as, with `identity`; `before`: what the file served until now. */
  install(at: { path: string; folder: string; identity: FileIdentity }, definition: D, before: Served | null): Served;
  uninstall(id: string): void;
}

/** A file of the folder as the engine last read it. */
export interface ProxyFileState {
  /** Inside the folder, with `/` between folders: `payments/charge.json`. */
  path: string;
  kind: FolderKind['kind'];
  /** loaded: the file as it is now serves. error: it does not; its last good version does, if it had one. */
  state: 'loaded' | 'error';
  /** The proxy or reactor served from the file (its last good version when it is broken now); null: none. */
  served: Served | null;
  /** What is wrong with it, each `field: message`. */
  problems: string[];
  /** What loads but should not be in a file meant for a repository (a credential in plain text, a secret not set). */
  warnings: string[];
  /** When the file was last read as it is now. */
  at: string;
}

interface Loaded extends ProxyFileState {
  fingerprint: string;
}

export interface ProxyFolderDeps {
  /** In the order they claim files: the most particular suffix first. */
  kinds: readonly FolderKind[];
  secrets: SecretStore;
  /** A line for the console: a file loaded, broken or removed. */
  report(line: string): void;
}

const byPath = new Intl.Collator('en').compare;
const hidden = (path: string) => path.split('/').some((part) => part.startsWith('.') || part === 'node_modules');

/** The `.json` files under `folder`, not in hidden folders nor node_modules. */
function jsonFilesIn(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith('.json'))
    .map((entry) => relative(folder, `${entry.parentPath}${sep}${entry.name}`).split(sep).join('/'))
    .filter((path) => !hidden(path))
    .sort(byPath);
}

/**
 * The proxies and reactors of one folder (`serve --proxies DIR`, or Settings): each file is read, checked as the API
 * checks its body, and served with the identity the engine keeps for its path; the folder is watched, and a saved change is
 * live for the next request. A file that breaks keeps its last good version serving, and says why.
 */
export class ProxyFolder {
  private current: string | null = null;
  private root = '';
  private readonly loaded = new Map<string, Loaded>();
  private watcher: FSWatcher | null = null;
  private settle: NodeJS.Timeout | null = null;
  private firstEventAt = 0;
  private retry: NodeJS.Timeout | null = null;
  private missingReported = false;
  /** The read under way, which the next waits for. */
  private reading: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ProxyFolderDeps) {}

  get folder(): string | null {
    return this.current;
  }

  /** Serves the proxies of `folder` from now on (null: none): those of the folder before go. */
  async open(folder: string | null): Promise<void> {
    this.close();
    // A read of the folder before finishes first, so it never installs what this one just took away.
    await this.reading;
    for (const { kind, served } of this.loaded.values()) if (served) this.kindOf(kind).uninstall(served.id);
    this.loaded.clear();
    this.current = folder;
    this.missingReported = false;
    if (folder === null) return;
    await this.reload();
    this.watch();
  }

  /** The folder's files as last read, by path. */
  files(): ProxyFileState[] {
    return [...this.loaded.values()].map(({ fingerprint: _f, ...state }) => state);
  }

  private kindOf(kind: FolderKind['kind']): FolderKind {
    return this.deps.kinds.find((k) => k.kind === kind)!;
  }

  /** The kind whose file `path` is, if any. */
  private claiming(path: string): FolderKind | undefined {
    return this.deps.kinds.find((k) => path.endsWith(k.suffix));
  }

  /**
   * Reads the folder now: new, changed and removed files take effect before this resolves. One read at a time, since
   * each awaits the identities of the files it finds (kept in the database).
   */
  reload(): Promise<void> {
    return this.exclusively(() => this.read());
  }

  /** Runs `work` with no read of the folder meanwhile (an export writing its files and claiming their identity). */
  exclusively<T>(work: () => Promise<T>): Promise<T> {
    const done = this.reading.then(work);
    this.reading = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  /** A read the watcher starts: what stops it (the database out of reach) is reported, and the next change tries again. */
  private reloadLater(then?: () => void): void {
    this.reload().then(then, (error: unknown) => this.deps.report(`proxies: the folder ${this.current} could not be read again: ${(error as Error).message}`));
  }

  private async read(): Promise<void> {
    if (this.current === null) return;
    let paths: string[];
    try {
      this.root = realpathSync(this.current);
      paths = jsonFilesIn(this.current);
    } catch (error) {
      if (!this.missingReported) this.deps.report(`proxies: the folder ${this.current} cannot be read (${(error as NodeJS.ErrnoException).code}): its proxies keep serving as they were`);
      this.missingReported = true;
      this.retryLater();
      return;
    }
    this.missingReported = false;
    const reads = new Map<string, { kind: FolderKind; read: DefinitionFileRead<unknown> }>();
    for (const path of paths) {
      const kind = this.claiming(path);
      if (kind) reads.set(path, { kind, read: readDefinitionFile(this.root, path, kind.file, this.deps.secrets) });
    }
    const gone = [...this.loaded.keys()].filter((path) => !reads.has(path));
    // A file renamed as it was (git mv, a rename in the editor) keeps its identity, when it stays of its kind.
    const renamed = new Set<string>();
    for (const path of gone) {
      const before = this.loaded.get(path)!;
      const to = [...reads].find(([other, { kind, read }]) => !this.loaded.has(other) && kind.kind === before.kind && read.fingerprint === before.fingerprint)?.[0];
      if (to !== undefined && before.served && (await this.kindOf(before.kind).identities.move(path, to))) {
        renamed.add(path);
        this.deps.report(`proxies: ${path} was renamed ${to}: its ${before.kind} keeps its identity`);
      }
    }
    for (const path of gone) {
      const { kind, served } = this.loaded.get(path)!;
      this.loaded.delete(path);
      if (!served || renamed.has(path)) continue;
      this.kindOf(kind).uninstall(served.id);
      this.deps.report(`proxies: ${path} was removed: ${kind} “${served.name}” (${served.id}) no longer answers`);
    }
    for (const [path, { kind, read }] of reads) {
      const before = this.loaded.get(path);
      if (before?.fingerprint === read.fingerprint) continue;
      const state = { path, kind: kind.kind, at: nowIso(), fingerprint: read.fingerprint };
      if ('problems' in read.outcome) {
        const served = before?.served ?? null;
        this.loaded.set(path, { ...state, state: 'error', served, problems: read.outcome.problems, warnings: [] });
        const keeps = served ? 'the last good version keeps serving' : 'nothing is served from it';
        this.deps.report(`proxies: ${path}: ${read.outcome.problems.join('; ')} (${keeps})`);
        continue;
      }
      const identity = await kind.identities.of(path);
      const served = kind.install({ path, folder: this.current, identity }, read.outcome.definition, before?.served ?? null);
      this.loaded.set(path, { ...state, state: 'loaded', served: { id: served.id, name: served.name }, problems: [], warnings: read.outcome.warnings });
      this.deps.report(`proxies: ${path}: ${before ? 'reloaded' : 'loaded'} ${kind.kind} “${served.name}” (${served.id})`);
      for (const warning of read.outcome.warnings) this.deps.report(`proxies: ${path}: warning: ${warning}`);
    }
  }

  /** Reloads once a burst of changes settles (or every MAX_WAIT_MS while it does not). */
  private watch(): void {
    if (this.current === null) return;
    try {
      this.watcher = watch(this.current, { recursive: true }, () => {
        const now = Date.now();
        if (this.settle) clearTimeout(this.settle);
        else this.firstEventAt = now;
        const wait = Math.max(0, Math.min(SETTLE_MS, this.firstEventAt + MAX_WAIT_MS - now));
        this.settle = setTimeout(() => {
          this.settle = null;
          this.reloadLater();
        }, wait).unref();
      });
    } catch {
      this.retryLater();
      return;
    }
    // A folder removed or replaced under the engine: watched again once it is back.
    this.watcher.on('error', () => {
      this.watcher?.close();
      this.watcher = null;
      this.retryLater();
    });
  }

  private retryLater(): void {
    if (this.retry || this.current === null) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.watcher) return;
      this.reloadLater(() => {
        if (!this.missingReported && !this.watcher) this.watch();
      });
    }, RETRY_MS).unref();
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.settle) clearTimeout(this.settle);
    this.settle = null;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
  }
}
