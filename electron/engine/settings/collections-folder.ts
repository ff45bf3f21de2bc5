import { accessSync, constants, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ApiProblem } from '../server/problem';
import { afterRun, type AnyUnitRunner, tx } from '../storage/unit';
import { followSetting, readSetting, writingSetting } from './setting-row';

/** The row of the vault's settings table that keeps the folder Settings chose. */
const KEY = 'collections_folder';

export interface CollectionsFolderState {
  /** Where saved requests and environments are kept now. */
  folder: string;
  default: string;
  /** The folder Settings chose; null: none. */
  stored: string | null;
  /**
   * What fixes the folder: `--collections DIR` given at start, which wins over Settings until the engine starts
   * without it, or the bind beyond loopback (`--host 0.0.0.0`), where only the operator's flags choose; null: none.
   */
  pinnedBy: string | null;
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;
/** A folder's real path (links followed), or where it would be when it does not exist yet. */
function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
/** Whether `path` is `folder` or inside it, both real paths. */
const isWithin = (path: string, folder: string) => path === folder || path.startsWith(folder + sep);

/** Why a page may not choose a folder of a shared engine (bound beyond loopback): its operator's flags do. */
export function operatorFixedProblem(folder: string, flag: string, host: string): ApiProblem {
  return new ApiProblem(409, `The ${folder} folder is fixed by the operator: serve ${host} listens beyond loopback, where only its start flag ${flag} chooses it`);
}

/** A path as a user types it: `~/` is the home folder; anything else must be whole. */
export function expanded(path: string): string {
  const trimmed = path.trim();
  if (trimmed === '~' || trimmed.startsWith('~/')) return join(homedir(), trimmed.slice(1));
  if (!isAbsolute(trimmed)) throw new ApiProblem(400, `“${trimmed}” is not a whole path: give the folder from the root (/home/you/project/requests, C:\\Users\\you\\requests) or from ~/`);
  return resolve(trimmed);
}

/** `folder`, made if new (0700): refused (400) where a file holds its name, (403) where it cannot be made. */
export function madeFolder(folder: string): string {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    if (codeOf(error) === 'EEXIST' || codeOf(error) === 'ENOTDIR') throw new ApiProblem(400, `${folder} is a file, not a folder: choose a folder`);
    throw new ApiProblem(403, `${folder} cannot be made (${codeOf(error)}): choose a folder you can write`);
  }
  if (!statSync(folder).isDirectory()) throw new ApiProblem(400, `${folder} is a file, not a folder: choose a folder`);
  return folder;
}

/**
 * Where the saved requests are kept: `serve --collections DIR`, else the folder chosen in Settings (a repository's
 * folder, say), else `collections/` in the data folder. A folder is taken only if it is (or can be made) a folder the
 * engine can write, outside the data folder, where the vault's own files are.
 */
export class CollectionsFolder {
  private stored: string | null = null;

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly options: {
      pinned: string | null;
      /** The bind beyond loopback (`--host …`) that leaves the choice to the operator's flags; null on loopback. */
      operatorFixed: string | null;
      default: string;
      dataDir: string | null;
      log: (line: string) => void;
    },
  ) {
    // What this replica shows as chosen follows another's choice; the folder in use changes at the next start.
    followSetting(units, KEY, () => this.load());
  }

  /** Reads the folder Settings chose: once at start. */
  async load(): Promise<void> {
    const value = await this.units.read(() => tx.get(readSetting, [KEY]));
    this.stored = value === undefined ? null : (JSON.parse(value) as string | null);
  }

  /**
   * The folder to start with. A chosen folder that can no longer be used (a drive not mounted, permissions changed)
   * gives way to the default, said in the log, and stays chosen for the next start.
   */
  initial(): string {
    const fixed = this.options.pinned !== null || this.options.operatorFixed !== null;
    if (fixed || this.stored === null) return this.options.pinned ?? this.options.default;
    try {
      return this.usable(this.stored);
    } catch (error) {
      this.options.log(`The collections folder chosen in Settings cannot be used (${error instanceof ApiProblem ? error.detail : codeOf(error)}): using ${this.options.default}`);
      return this.options.default;
    }
  }

  state(folder: string): CollectionsFolderState {
    return { folder, default: this.options.default, stored: this.stored, pinnedBy: this.fixedBy() };
  }

  private fixedBy(): string | null {
    return this.options.pinned !== null ? `--collections ${this.options.pinned}` : this.options.operatorFixed;
  }

  /**
   * Checks and saves a new folder (null: back to the default), and answers the folder to use; refused (409) under
   * `--collections`, and (400, 403) for a folder the engine cannot use.
   */
  async change(path: string | null): Promise<string> {
    if (this.options.operatorFixed !== null) throw operatorFixedProblem('collections', '--collections', this.options.operatorFixed);
    if (this.options.pinned !== null) {
      throw new ApiProblem(409, `The collections folder is fixed by the start flag --collections ${this.options.pinned}: start the engine without it to choose one here`);
    }
    const folder = path === null ? this.options.default : this.usable(expanded(path));
    const stored = path === null ? null : folder;
    return afterRun(this.units.run(() => writingSetting(KEY, JSON.stringify(stored))), () => {
      this.stored = stored;
      return folder;
    });
  }

  /** `folder` made if new, and checked: a folder, writable, not the data folder nor inside it (but its own collections/). */
  private usable(folder: string): string {
    madeFolder(folder);
    try {
      accessSync(folder, constants.W_OK | constants.X_OK);
    } catch (error) {
      throw new ApiProblem(403, `${folder} cannot be written (${codeOf(error)}): check its permissions, or choose another folder`);
    }
    const { dataDir } = this.options;
    const real = realpathSync(folder);
    if (dataDir !== null && isWithin(real, realOf(dataDir)) && real !== realOf(this.options.default)) {
      const where = relative(realOf(dataDir), real) || 'the data folder itself';
      throw new ApiProblem(400, `${folder} is inside the data folder (${where}), where the vault keeps its own files: choose a folder outside it`);
    }
    return folder;
  }
}
