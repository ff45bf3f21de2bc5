import { query } from '../storage/unit';

/** A row of the vault's settings table: one JSON value by key, what Settings saved for a group or a folder. */
export const readSetting = query<string>('read setting', 'SELECT value FROM settings WHERE key = ?', { pluck: true });
export const writeSetting = query('write setting', 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
