import { realpathSync } from 'node:fs';
import { ApiProblem } from '../server/problem';
import { followSetting, settingChanged } from '../settings/setting-row';
import { query, tx, type AnyUnitRunner, type Unit } from '../storage/unit';
import { EnvironmentStore } from './environment-store';
import type { ActiveVariables } from './resolve-references';

/** The row of the vault's settings table that keeps the active environment of each collections folder. */
const KEY = 'active_environments';

/** Every folder's choice, by the folder's real path (one folder reached by two paths is one choice). */
type Choices = Record<string, string>;

const keptChoices = query<string>('active environments', 'SELECT value FROM settings WHERE key = ?', { pluck: true });
const lockedChoices = query<string>('active environments to change', 'SELECT value FROM settings WHERE key = ?', {
  pluck: true,
  postgres: 'SELECT value FROM settings WHERE key = $1 FOR UPDATE',
});
const ensureChoices = query('active environments row', "INSERT INTO settings (key, value) VALUES (?, '{}') ON CONFLICT (key) DO NOTHING");
const keepChoices = query('active environments kept', 'UPDATE settings SET value = ? WHERE key = ?');

const parsed = (value: string | undefined): Choices => (value === undefined ? {} : (JSON.parse(value) as Choices));

function* readingChoices(): Unit<Choices> {
  return parsed(yield* tx.get(keptChoices, [KEY]));
}

/**
 * One folder's choice changed, the others' as they are now: the row is made if missing and read locked, so two
 * replicas choosing for two folders at once both keep theirs.
 */
function* choosing(folder: string, name: string | null): Unit<Choices> {
  yield* tx.run(ensureChoices, [KEY]);
  const choices = parsed(yield* tx.get(lockedChoices, [KEY]));
  if (name === null) delete choices[folder];
  else choices[folder] = name;
  yield* tx.run(keepChoices, [JSON.stringify(choices), KEY]);
  yield* settingChanged(KEY);
  return choices;
}

/**
 * The environments of the collections folder and the one requests are sent with. Which one is active is remembered
 * per folder in the engine's settings, never in the folder: choosing one changes nothing a teammate checks out.
 */
export class Environments {
  readonly store: EnvironmentStore;
  /** Held since every request sent from the workbench reads the active environment. */
  private choices: Choices = {};

  constructor(
    private readonly units: AnyUnitRunner,
    /** The collections folder, which may change while the engine runs. */
    readonly folder: () => string,
  ) {
    this.store = new EnvironmentStore(folder);
    followSetting(units, KEY, () => this.load());
  }

  /** Reads every folder's choice; called once at start. */
  async load(): Promise<void> {
    this.settle(await this.units.read(readingChoices));
  }

  /** The one place the held choices change: after this process's own change commits, or another replica's. */
  private settle(choices: Choices): void {
    this.choices = choices;
  }

  /** The active environment's name in the current folder; null when none was chosen there. */
  active(): string | null {
    return this.choices[realpathSync(this.folder())] ?? null;
  }

  /** Chooses the environment requests are sent with (null: none); a 404 for one the folder does not hold. */
  async choose(name: string | null): Promise<void> {
    if (name !== null && !this.store.has(name)) throw new ApiProblem(404, `There is no environment named “${name}” in the collections folder`);
    const folder = realpathSync(this.folder());
    this.settle(await this.units.run(() => choosing(folder, name)));
  }

  /** After a rename or a delete: the choice follows the environment, or goes with it. */
  async changed(from: string, to: string | null): Promise<void> {
    if (this.active() === from) await this.choose(to);
  }

  /** The active environment's variables, read from its file now (git may have changed it), for resolving references. */
  variables(): ActiveVariables {
    const environment = this.active();
    if (environment === null) return { environment, variables: new Map(), problem: null };
    try {
      return { environment, variables: new Map(this.store.read(environment).map((variable) => [variable.name, variable])), problem: null };
    } catch (error) {
      if (!(error instanceof ApiProblem)) throw error;
      const problem = error.status === 404 ? `The environment “${environment}” is no longer in the collections folder` : (error.detail ?? error.message);
      return { environment, variables: new Map(), problem };
    }
  }
}
