import { keepCoherent } from '../storage/coherent-memory';
import { query, tx, type AnyUnitRunner, type Unit } from '../storage/unit';

/** The change feed's channel of the settings table, naming the row's key. */
const CHANNEL = 'settings';

/** A row of the vault's settings table: one JSON value by key, what Settings saved for a group or a folder. */
export const readSetting = query<string>('read setting', 'SELECT value FROM settings WHERE key = ?', { pluck: true });
const writeSetting = query('write setting', 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');

/** Saves the row `key`; the other replicas read it again. */
export function* writingSetting(key: string, value: string): Unit<void> {
  yield* tx.run(writeSetting, [key, value]);
  yield* settingChanged(key);
}

/** Tells the other replicas that the row `key` changed, from the unit that changed it with statements of its own. */
export function* settingChanged(key: string): Unit<void> {
  yield* tx.notify(CHANNEL, key);
}

/** Calls `reload` when another replica saved the row `key`, and when notices may have been lost. */
export function followSetting(units: AnyUnitRunner, key: string, reload: () => Promise<void>): void {
  keepCoherent(units.changes, { channel: CHANNEL, reloadOne: async (id) => (id === key ? reload() : undefined), reloadAll: reload });
}
