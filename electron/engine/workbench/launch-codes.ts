import { createHash, randomBytes } from 'node:crypto';

/**
 * How long a launch link works. Long enough for a browser's cold start or for copying the link from the terminal;
 * short, so that a link left in a terminal's scrollback, a log or a browser's history is dead soon after, even unused.
 */
export const LAUNCH_CODE_LIFETIME_MS = 120_000;
/** Codes remembered at once, so a used or expired one can be told from a wrong one; the oldest goes first. */
const REMEMBERED = 64;

export type Redeemed = 'ok' | 'used' | 'expired' | 'unknown';

/**
 * The one-time codes of launch links (shared/workbench/transport.ts). Each code is random (256 bits), works once and
 * for LAUNCH_CODE_LIFETIME_MS. Kept by their hash: a lookup's timing says nothing about the codes held.
 */
export class LaunchCodes {
  private readonly codes = new Map<string, { expiresAt: number; used: boolean }>();

  mint(): string {
    const code = randomBytes(32).toString('base64url');
    this.codes.set(hash(code), { expiresAt: Date.now() + LAUNCH_CODE_LIFETIME_MS, used: false });
    if (this.codes.size > REMEMBERED) this.codes.delete(this.codes.keys().next().value!);
    return code;
  }

  redeem(code: string): Redeemed {
    const held = this.codes.get(hash(code));
    if (!held) return 'unknown';
    if (held.used) return 'used';
    if (Date.now() >= held.expiresAt) return 'expired';
    held.used = true;
    return 'ok';
  }
}

const hash = (code: string) => createHash('sha256').update(code).digest('base64url');
