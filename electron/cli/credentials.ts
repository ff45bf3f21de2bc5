import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
// The folder's store alone, not the engine's index: a command that starts nothing loads nothing else.
import { openCredentials } from '../engine/people/credentials-folder';
import { ApiProblem } from '../engine/server/problem';

const USAGE = [
  'Usage: tokenbench credentials create NAME | list | revoke NAME [--data-dir DIR]',
  '',
  '  create NAME       make a workbench credential for NAME; its secret is printed this once',
  '  list              the credentials: name, created, last used (never a secret)',
  '  revoke NAME       delete NAME\'s credential: its sessions end at once, in a serve running on DIR too',
  '  --data-dir DIR    the vault to manage (default ./.tokenbench), which serve must have made',
  '',
  'Exit codes: 0 done, 1 refused (no vault in DIR, a name taken or unknown), 2 for arguments it cannot take.',
  '',
].join('\n');

const table = (rows: string[][]) => {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n');
};

/** `tokenbench credentials …`: the named workbench credentials of a data folder, while a serve runs on it or not. */
export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    process.stderr.write(`tokenbench credentials: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [command, name, ...extra] = positionals;
  const arity = command === 'list' ? 0 : command === 'create' || command === 'revoke' ? 1 : -1;
  if (arity === -1 || (arity === 1 && name === undefined) || positionals.length - 1 !== arity || extra.length > 0) {
    process.stderr.write(`tokenbench credentials: ${command === undefined ? 'say what to do' : `cannot take "${positionals.join(' ')}"`}\n${USAGE}`);
    return 2;
  }
  const dataDir = resolve(values['data-dir'] ?? '.tokenbench');
  const opened = openCredentials(dataDir);
  if (!opened) {
    process.stderr.write(`tokenbench credentials: no vault in ${dataDir}: start \`tokenbench serve --data-dir ${dataDir}\` once first, or give the right --data-dir\n`);
    return 1;
  }
  try {
    if (command === 'list') {
      const credentials = await opened.store.list();
      const rows = credentials.map(({ name: held, created_at, last_used_at }) => [held, created_at, last_used_at ?? 'never']);
      process.stdout.write(credentials.length === 0 ? 'No workbench credentials: the workbench has only its owner.\n' : `${table([['NAME', 'CREATED', 'LAST USED'], ...rows])}\n`);
    } else if (command === 'create') {
      const { credential, secret } = await opened.store.create(name);
      process.stdout.write(
        `Created workbench credential “${credential.name}” (${credential.id}). Its secret is shown this once:\n  ${secret}\n` +
          `Hand it to ${credential.name} privately; they paste it into the workbench's sign-in form.\n`,
      );
    } else if (!(await opened.store.revoke(name))) {
      process.stderr.write(`tokenbench credentials: no credential is named “${name}” (\`tokenbench credentials list\` names them)\n`);
      return 1;
    } else {
      process.stdout.write(`Revoked “${name}”: its sessions end at once.\n`);
    }
    return 0;
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    process.stderr.write(`tokenbench credentials: ${error.message}\n`);
    return 1;
  } finally {
    opened.close();
  }
}
