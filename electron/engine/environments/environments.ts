import { realpathSync } from 'node:fs';
import { ApiProblem } from '../server/problem';
import type { Db } from '../storage/database';
import { EnvironmentStore } from './environment-store';
import type { ActiveVariables } from './resolve-references';

/** The row of the vault's settings table that keeps the active environment of each collections folder. */
const KEY = 'active_environments';

/**
 * The environments of the collections folder and the one requests are sent with. Which one is active is remembered
 * per folder in the engine's settings, never in the folder: choosing one changes nothing a teammate checks out.
 */
export class Environments {
  readonly store: EnvironmentStore;

  constructor(
    private readonly db: Db,
    /** The collections folder, which may change while the engine runs. */
    readonly folder: () => string,
  ) {
    this.store = new EnvironmentStore(folder);
  }

  /** Every folder's choice, by the folder's real path (one folder reached by two paths is one choice). */
  private choices(): Record<string, string> {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(KEY) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as Record<string, string>) : {};
  }

  /** The active environment's name in the current folder; null when none was chosen there. */
  active(): string | null {
    return this.choices()[realpathSync(this.folder())] ?? null;
  }

  /** Chooses the environment requests are sent with (null: none); a 404 for one the folder does not hold. */
  choose(name: string | null): void {
    if (name !== null && !this.store.has(name)) throw new ApiProblem(404, `There is no environment named “${name}” in the collections folder`);
    const choices = this.choices();
    const folder = realpathSync(this.folder());
    if (name === null) delete choices[folder];
    else choices[folder] = name;
    this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(KEY, JSON.stringify(choices));
  }

  /** After a rename or a delete: the choice follows the environment, or goes with it. */
  changed(from: string, to: string | null): void {
    if (this.active() === from) this.choose(to);
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
