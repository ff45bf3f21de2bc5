/**
 * Run by collections-disk-full.test.ts inside a private mount namespace, where the folder it is given is a small
 * tmpfs: saves a request, fills the disk, then saves over the request and saves a new one, as the browser does, and
 * prints what the client got and what the folder holds after.
 */
import { openSync, readdirSync, readFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { SAVED_REQUEST } from '../support/saved-request';
import { startTestEngine } from '../support/test-engine';


/** Writes to a file until the disk takes no more, in smaller and smaller pieces down to one byte. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (let piece = 64 * 1024; piece >= 1; piece = Math.floor(piece / 2)) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(piece, 0x20));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

async function main(): Promise<void> {
  const folder = process.argv[2];
  const t = await startTestEngine({ inMemory: true, collectionsDir: folder, workbenchRoutes: true });
  try {
    const saved = await t.workbench('saveRequest', { collection: 'Payments', name: 'Charge', request: SAVED_REQUEST });
    const file = join(folder, 'Payments', 'Charge.request.json');
    const before = readFileSync(file);
    fill(join(folder, 'filler'));
    const larger = { ...SAVED_REQUEST, body: JSON.stringify({ amount: 20, note: 'x'.repeat(20_000) }) };
    const overwrite = await t.workbench('saveRequest', { collection: 'Payments', name: 'Charge', request: larger, overwrite: true });
    const create = await t.workbench('saveRequest', { collection: 'Payments', name: 'Refund', request: larger });
    const listed = await t.workbench('listCollections', {});
    process.stdout.write(
      JSON.stringify({
        saved: saved.status,
        overwrite: overwrite.body,
        create: create.body,
        kept: readFileSync(file).equals(before),
        collection: readdirSync(join(folder, 'Payments')),
        listed: listed.body,
        folder,
      }),
    );
  } finally {
    await t.stop();
  }
}

void main();
