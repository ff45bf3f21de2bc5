import { type FSWatcher, readdirSync, realpathSync, watch } from 'node:fs';
import { relative, sep } from 'node:path';
import { nowIso } from '../../clock';
import type { SecretStore } from '../../secrets/secret-store';
import type { ProxyDefinition, StoredProxy } from '../proxy-model';
import type { ProxyStore } from '../proxy-store';
import type { FileIdentities } from './file-identities';
import { resolvedConfiguration } from './file-secrets';
import { PROXY_FILE_SUFFIX, type ProxyFileChecks, readProxyFile } from './proxy-file';

/** An editor's save is a burst of events (a temporary file, a rename, a chmod): one reload once they settle. */
const SETTLE_MS = 40;
/** A folder that never settles (a build writing into it) is still reloaded this often. */
const MAX_WAIT_MS = 200;
/** How often a folder gone (or never there) is looked for again. */
const RETRY_MS = 1000;

/** A file of the folder as the engine last read it. */
export interface ProxyFileState {
  /** Inside the folder, with `/` between folders: `payments/charge.json`. */
  path: string;
  /** loaded: the file as it is now serves. error: it does not; its last good version does, if it had one. */
  state: 'loaded' | 'error';
  /** The proxy served from the file (its last good version when it is broken now); null: none. */
  proxy: { id: string; name: string } | null;
  /** What is wrong with it, each `field: message`. */
  problems: string[];
  /** What loads but should not be in a file meant for a repository (a credential in plain text, a secret not set). */
  warnings: string[];
  /** When the file was last read as it is now. */
  at: string;
}

interface Loaded extends ProxyFileState {
  fingerprint: string;
  served: StoredProxy | null;
}

export interface ProxyFolderDeps {
  proxies: ProxyStore;
  identities: FileIdentities;
  checks: ProxyFileChecks & { secrets: SecretStore };
  /** A line for the console: a file loaded, broken or removed. */
  report(line: string): void;
  /** A file proxy has code: the code runtime gets ready before its first call. */
  codeLoaded(): void;
}

const byPath = new Intl.Collator('en').compare;
const hidden = (path: string) => path.split('/').some((part) => part.startsWith('.') || part === 'node_modules');

/** The proxy files under `folder`: `.json` files, not in hidden folders nor node_modules. */
function proxyFilesIn(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(PROXY_FILE_SUFFIX))
    .map((entry) => relative(folder, `${entry.parentPath}${sep}${entry.name}`).split(sep).join('/'))
    .filter((path) => !hidden(path))
    .sort(byPath);
}

/**
 * The proxies of one folder (`serve --proxies DIR`, or Settings): each file is read, checked as the API checks a
 * proxy, and served with the id and key the engine keeps for its path; the folder is watched, and a saved change is
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

  constructor(private readonly deps: ProxyFolderDeps) {}

  get folder(): string | null {
    return this.current;
  }

  /** Serves the proxies of `folder` from now on (null: none): those of the folder before go. */
  open(folder: string | null): void {
    this.close();
    for (const { served } of this.loaded.values()) if (served) this.deps.proxies.uninstall(served.id);
    this.loaded.clear();
    this.current = folder;
    this.missingReported = false;
    if (folder === null) return;
    this.reload();
    this.watch();
  }

  /** The folder's files as last read, by path. */
  files(): ProxyFileState[] {
    return [...this.loaded.values()].map(({ fingerprint: _f, served: _s, ...state }) => state);
  }

  /** The file a proxy is served from, if any. */
  fileOf(id: string): string | undefined {
    return [...this.loaded.values()].find((entry) => entry.served?.id === id)?.path;
  }

  /** Reads the folder now: new, changed and removed files take effect before this returns. */
  reload(): void {
    if (this.current === null) return;
    let paths: string[];
    try {
      this.root = realpathSync(this.current);
      paths = proxyFilesIn(this.current);
    } catch (error) {
      if (!this.missingReported) this.deps.report(`proxies: the folder ${this.current} cannot be read (${(error as NodeJS.ErrnoException).code}): its proxies keep serving as they were`);
      this.missingReported = true;
      this.retryLater();
      return;
    }
    this.missingReported = false;
    const reads = new Map(paths.map((path) => [path, readProxyFile(this.root, path, this.deps.checks)]));
    const gone = [...this.loaded.keys()].filter((path) => !reads.has(path));
    // A file renamed as it was (git mv, a rename in the editor) keeps its proxy's identity.
    const renamed = new Set<string>();
    for (const path of gone) {
      const before = this.loaded.get(path)!;
      const to = [...reads].find(([other, read]) => !this.loaded.has(other) && read.fingerprint === before.fingerprint)?.[0];
      if (to !== undefined && before.served && this.deps.identities.move(path, to)) {
        renamed.add(path);
        this.deps.report(`proxies: ${path} was renamed ${to}: its proxy keeps its id and key`);
      }
    }
    for (const path of gone) {
      const { served } = this.loaded.get(path)!;
      this.loaded.delete(path);
      if (!served || renamed.has(path)) continue;
      this.deps.proxies.uninstall(served.id);
      this.deps.report(`proxies: ${path} was removed: proxy “${served.name}” (${served.id}) no longer answers`);
    }
    for (const [path, read] of reads) {
      const before = this.loaded.get(path);
      if (before?.fingerprint === read.fingerprint) continue;
      const at = nowIso();
      if ('problems' in read.outcome) {
        const served = before?.served ?? null;
        this.loaded.set(path, { path, state: 'error', proxy: served && { id: served.id, name: served.name }, problems: read.outcome.problems, warnings: [], at, fingerprint: read.fingerprint, served });
        const keeps = served ? 'the last good version keeps serving' : 'nothing is served from it';
        this.deps.report(`proxies: ${path}: ${read.outcome.problems.join('; ')} (${keeps})`);
        continue;
      }
      const served = this.install(path, read.outcome.definition, before?.served ?? null);
      this.loaded.set(path, { path, state: 'loaded', proxy: { id: served.id, name: served.name }, problems: [], warnings: read.outcome.warnings, at, fingerprint: read.fingerprint, served });
      this.deps.report(`proxies: ${path}: ${before ? 'reloaded' : 'loaded'} proxy “${served.name}” (${served.id})`);
      for (const warning of read.outcome.warnings) this.deps.report(`proxies: ${path}: warning: ${warning}`);
    }
  }

  /** The file's proxy as served: its identity kept for its path, its configuration's secrets put in at each call. */
  private install(path: string, definition: ProxyDefinition, before: StoredProxy | null): StoredProxy {
    const identity = this.deps.identities.of(path);
    const { secrets } = this.deps.checks;
    const referencing = Object.values(definition.configuration).some((value) => value.includes('${'));
    const proxy: StoredProxy = {
      ...definition,
      id: identity.id,
      key: identity.key,
      state: 'active',
      requested: null,
      live: true,
      created_by: `file:${path}`,
      created_at: identity.created_at,
      modified_by: before ? `file:${path}` : null,
      modified_at: before ? nowIso() : null,
      file: {
        path,
        folder: this.current!,
        atCall(log) {
          if (!referencing) return proxy;
          const { configuration, values } = resolvedConfiguration(proxy.configuration, secrets, path);
          log.secrets ??= values ?? undefined;
          return { ...proxy, configuration };
        },
      },
    };
    this.deps.proxies.install(proxy);
    if ([...proxy.request_transforms, ...proxy.response_transforms].some((t) => t.type === 'code')) this.deps.codeLoaded();
    return proxy;
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
          this.reload();
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
      this.reload();
      if (!this.missingReported) this.watch();
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
