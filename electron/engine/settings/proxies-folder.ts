import { ApiProblem } from '../server/problem';
import { afterRun, type AnyUnitRunner, tx } from '../storage/unit';
import { expanded, madeFolder, operatorFixedProblem } from './collections-folder';
import { followSetting, readSetting, writingSetting } from './setting-row';

/** The row of the vault's settings table that keeps the proxies folder Settings chose. */
const KEY = 'proxies_folder';

/**
 * Where pre-configured proxies are loaded from: `serve --proxies DIR`, else the folder chosen in Settings (a
 * repository's proxies/, say), else none.
 */
export class ProxiesFolderSetting {
  private stored: string | null = null;

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly pinned: string | null,
    /** The bind beyond loopback (`--host …`) that leaves the folder to the operator's flags; null on loopback. */
    private readonly operatorFixed: string | null = null,
  ) {
    // What this replica shows as chosen follows another's choice; the folder in use changes at the next start.
    followSetting(units, KEY, () => this.load());
  }

  /** Reads the folder Settings chose: once at start. */
  async load(): Promise<void> {
    const value = await this.units.read(() => tx.get(readSetting, [KEY]));
    this.stored = value === undefined ? null : (JSON.parse(value) as string | null);
  }

  /** The folder to start with. */
  initial(): string | null {
    return this.operatorFixed === null ? (this.pinned ?? this.stored) : this.pinned;
  }

  state(): { stored: string | null; pinnedBy: string | null } {
    return { stored: this.stored, pinnedBy: this.pinned === null ? this.operatorFixed : `--proxies ${this.pinned}` };
  }

  /** Checks and saves a new folder (made if new; null: none), and answers it; refused (409) under `--proxies`. */
  async change(path: string | null): Promise<string | null> {
    if (this.operatorFixed !== null) throw operatorFixedProblem('proxies', '--proxies', this.operatorFixed);
    if (this.pinned !== null) throw new ApiProblem(409, `The proxies folder is fixed by the start flag --proxies ${this.pinned}: start the engine without it to choose one here`);
    const folder = path === null ? null : madeFolder(expanded(path));
    return afterRun(this.units.run(() => writingSetting(KEY, JSON.stringify(folder))), () => {
      this.stored = folder;
      return folder;
    });
  }
}
