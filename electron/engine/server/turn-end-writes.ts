import type { ServerResponse } from 'node:http';

/**
 * Holds the last write of each response until the end of the event-loop turn, then makes them back to back.
 *
 * Why: a client waiting on several connections (an SDK's pool, a load generator, a test suite) sleeps between
 * answers, and every write that wakes it costs the writer a cross-CPU wake-up, the dearest part of a small reply
 * on a VM. Replies finished in the same turn wake such a client once. A turn ends right after the poll phase
 * (setImmediate), so a lone request waits microseconds.
 */
interface PendingWrite {
  res: ServerResponse;
  /** What end() sends; `null` only uncorks (the proxy's head and the chunks of this turn). */
  end: string | Buffer | undefined | null;
}

let pending: PendingWrite[] = [];

function flush(): void {
  const due = pending;
  pending = [];
  // Neither call throws for a response whose client has gone: Node drops the write.
  for (const { res, end } of due) {
    if (end === null) res.uncork();
    else res.end(end);
  }
}

function atTurnEnd(write: PendingWrite): void {
  if (pending.push(write) === 1) setImmediate(flush);
}

/** Ends `res` (with `body`, if any) at the end of this event-loop turn. */
export function endAtTurnEnd(res: ServerResponse, body?: string | Buffer): void {
  atTurnEnd({ res, end: body });
}

/** Uncorks `res` at the end of this event-loop turn: what was written until then leaves in one send. */
export function uncorkAtTurnEnd(res: ServerResponse): void {
  atTurnEnd({ res, end: null });
}
