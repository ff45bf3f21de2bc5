import { ApiProblem } from '../server/problem';

/** An answer the Composer shows masked, as it was received (secrets written back as their references). */
export interface HeldAnswer {
  headers: [string, string][];
  body: Buffer;
}

/** How many answers are held for a reveal, for how long, and how many of their bytes in all. */
export const HELD_ANSWERS = 20;
export const HOLD_MINUTES = 15;
const HELD_BYTES = 64 * 1024 * 1024;

/**
 * The plaintext behind the Composer's masked answers, by their request's history entry id, for the user's explicit
 * reveal: in memory only, never written anywhere, the newest HELD_ANSWERS for HOLD_MINUTES each and within
 * HELD_BYTES in all, and dropped when the vault is wiped.
 */
export class HeldAnswers {
  /** Oldest first, as a Map keeps them. */
  private readonly held = new Map<string, { answer: HeldAnswer; timer: NodeJS.Timeout }>();
  private bytes = 0;

  hold(entryId: string, answer: HeldAnswer): void {
    this.drop(entryId);
    const timer = setTimeout(() => this.drop(entryId), HOLD_MINUTES * 60_000).unref();
    this.held.set(entryId, { answer, timer });
    this.bytes += answer.body.length;
    for (const [oldest] of this.held) {
      if (this.held.size <= HELD_ANSWERS && this.bytes <= HELD_BYTES) break;
      this.drop(oldest);
    }
  }

  /** The answer of the request `entryId`, as received; a 404 saying why when none is held. */
  reveal(entryId: string): HeldAnswer {
    const held = this.held.get(entryId);
    if (held) return held.answer;
    throw new ApiProblem(
      404,
      `No answer of request ${entryId} is held to reveal: the engine keeps, in memory only, the last ${HELD_ANSWERS} answers the Composer showed masked, for ${HOLD_MINUTES} minutes each. Send the request again to see its values.`,
    );
  }

  forget(): void {
    for (const entryId of [...this.held.keys()]) this.drop(entryId);
  }

  private drop(entryId: string): void {
    const held = this.held.get(entryId);
    if (!held) return;
    clearTimeout(held.timer);
    this.bytes -= held.answer.body.length;
    this.held.delete(entryId);
  }
}
