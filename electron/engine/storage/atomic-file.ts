import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Files a user keeps (a saved request, the master key) are written whole or not at all: the bytes go to a temporary
 * file in the same folder, are flushed to the disk, and only then take the file's name. A crash or a full disk at any
 * step leaves the previous version as it was, and no temporary file behind.
 */

/** A new file only, never through a link (where the OS has the flag). */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** How the new file takes its name: over whatever holds it (`replace`), or only where nothing does (`create`). */
export type Placement = 'replace' | 'create';

/**
 * Writes `text` to `file` atomically, mode 0600. `replace` renames over the old file (never following a link there:
 * a rename replaces the link itself); `create` links the new file in, which fails with EEXIST where any entry holds
 * the name, so two writers racing for a new name end with one file, the first one's.
 */
export function writeFileAtomic(file: string, text: string, placement: Placement): void {
  const bytes = Buffer.from(text);
  const { temp, fd } = createTempBeside(file);
  try {
    try {
      writeAll(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    placeTemp(temp, file, placement);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** A new empty file beside `file`, exactly 0600 whatever the umask, for a content that takes `file`'s name whole. */
export function createTempBeside(file: string): { temp: string; fd: number } {
  // Unguessable, so no one can plant a link under the name first; short, so any name the file system takes fits.
  const temp = join(dirname(file), `.tokenbench-${randomBytes(12).toString('hex')}.tmp`);
  const fd = openSync(temp, CREATE_NEW, 0o600);
  try {
    fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  return { temp, fd };
}

/** Gives a flushed temporary file `file`'s name by `placement` and makes the new name outlive a power cut. */
export function placeTemp(temp: string, file: string, placement: Placement): void {
  if (placement === 'replace') renameSync(temp, file);
  else linkSync(temp, file);
  rmSync(temp, { force: true });
  syncFolder(dirname(file));
}

/** Every byte, or an error: a write may take fewer bytes than it was given. */
function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) {
    const written = writeSync(fd, bytes, at, bytes.length - at);
    // A file system that takes nothing without saying why has no room left; looping would never end.
    if (written === 0) throw Object.assign(new Error('The file system took no more bytes'), { code: 'ENOSPC' });
    at += written;
  }
}

/** Flushes a folder's entries (a new name, a rename), so the change outlives a power cut. */
export function syncFolder(folder: string): void {
  // Windows cannot open a folder as a file; NTFS journals the rename itself.
  if (process.platform === 'win32') return;
  const fd = openSync(folder, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
