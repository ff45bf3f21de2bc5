import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { backupVault, BackupError } from '../engine';
import { DEFAULT_DATA_DIR, MASTER_KEY_ENV } from './serve-options';

export const BACKUP_USAGE = [
  'Usage: tokenbench backup FILE [--data-dir DIR] [--force]',
  '',
  '  Copies the vault of DIR (default ./.tokenbench) into FILE, while a serve on DIR goes on working: tokens,',
  '  applications, secrets and settings; not the request history, the saved requests or the master key.',
  '  --force replaces an existing FILE. Restore: copy FILE to NEWDIR/tokenbench.sqlite in an empty folder, then',
  `  serve --data-dir NEWDIR with the vault's master key (${MASTER_KEY_ENV} or --master-key-file).`,
  '',
  'Exit codes: 0 once written, 1 when it could not be made, 2 for arguments it cannot take.',
  '',
].join('\n');

/** Where the key that opens the copy is, said after each backup: the copy is useless without it, and holds none. */
function keyReminder(dataDir: string): string {
  const keyFile = join(dataDir, 'master.key');
  const where = existsSync(keyFile) ? `its key file ${keyFile}` : `the key this serve was given (${MASTER_KEY_ENV} or --master-key-file)`;
  return `The backup does not hold the master key: it opens only with ${where}. Keep that key safe and apart from the backup.`;
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { 'data-dir': { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    process.stderr.write(`tokenbench backup: ${(error as Error).message}\n${BACKUP_USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(BACKUP_USAGE);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    process.stderr.write(`tokenbench backup: give one FILE to write\n${BACKUP_USAGE}`);
    return 2;
  }
  const dataDir = resolve(parsed.values['data-dir'] ?? DEFAULT_DATA_DIR);
  const file = resolve(parsed.positionals[0]);
  try {
    await backupVault(dataDir, file, { replace: parsed.values.force === true });
  } catch (error) {
    const why = error instanceof BackupError ? error.message : `${(error as Error).message}; nothing was written to ${file}`;
    process.stderr.write(`tokenbench backup: ${why}\n`);
    return 1;
  }
  process.stdout.write(`Backed up the vault in ${dataDir} to ${file}\n${keyReminder(dataDir)}\n`);
  return 0;
}
