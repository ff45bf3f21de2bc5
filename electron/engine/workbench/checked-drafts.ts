import type { BodyEdit, RequestToCheck, RequestCheckQuery } from '../../../shared/workbench/composer-contract';
import { ApiProblem } from '../server/problem';

/** Drafts kept at once: a page keeps one, so this is pages open at once. */
const DRAFTS_KEPT = 8;
/**
 * UTF-8 bytes kept across the drafts. Each is within the body limit, but Settings may raise that to 256 MiB, and eight
 * such drafts would hold gigabytes; past this, the drafts checked longest ago are forgotten (the newest always stays).
 */
const KEPT_BYTES = 16 * 1024 * 1024;

interface KeptBody {
  revision: number;
  body: string | null;
  bytes: number;
}

const utf8Bytes = (body: string | null) => (body === null ? 0 : Buffer.byteLength(body, 'utf8'));

const tooLarge = (bytes: number, limit: number) =>
  new ApiProblem(413, `The body is ${bytes.toLocaleString('en')} bytes, over the body limit of ${limit.toLocaleString('en')} bytes (--max-body)`);

/**
 * The body each page's draft had at its last check, so the next check can send only what changed (its draft's
 * `edit`). Kept in memory only, and forgotten when the engine stops or more pages check than are kept. A body over the
 * engine's body limit is refused as the service would refuse it (413), and the draft keeps the body it had.
 */
export class CheckedDrafts {
  /** In the order they were checked, the latest last. */
  private readonly kept = new Map<string, KeptBody>();
  private keptBytes = 0;

  /** @param bodyLimit the engine's body limit in bytes, read at each check since Settings may change it. */
  constructor(private readonly bodyLimit: () => number) {}

  /** The request with its whole body, the draft's edit applied; the body is kept as the draft's revision. */
  resolve({ draft, ...request }: RequestCheckQuery): RequestToCheck {
    const limit = this.bodyLimit();
    const edited = draft?.edit ? this.applyEdit(draft.id, draft.edit, limit) : { body: request.body, bytes: this.withinLimit(request.body, limit) };
    if (draft !== undefined) this.keep(draft.id, { revision: draft.revision, ...edited });
    return { ...request, body: edited.body };
  }

  /** The body's size in UTF-8 bytes, as the service counts it against the limit; a 413 when over. */
  private withinLimit(body: string | null, limit: number): number {
    // Never fewer bytes than UTF-16 code units: a body that long is refused before it is measured.
    if (body !== null && body.length > limit) throw tooLarge(utf8Bytes(body), limit);
    const bytes = utf8Bytes(body);
    if (bytes > limit) throw tooLarge(bytes, limit);
    return bytes;
  }

  private applyEdit(id: string, { base, from, to, insert }: BodyEdit, limit: number): { body: string; bytes: number } {
    const kept = this.kept.get(id);
    if (kept?.revision !== base || kept.body === null) {
      throw new ApiProblem(409, `The engine no longer holds revision ${base} of draft ${id}: send the whole body.`);
    }
    const { body } = kept;
    if (to > body.length) throw new ApiProblem(400, `The edit ends at ${to}, after the end of the body (${body.length})`);
    // Measured before it is built: an edit past the limit costs no copy of the body.
    if (body.length - (to - from) + insert.length > limit) {
      throw tooLarge(kept.bytes - utf8Bytes(body.slice(from, to)) + utf8Bytes(insert), limit);
    }
    const edited = body.slice(0, from) + insert + body.slice(to);
    return { body: edited, bytes: this.withinLimit(edited, limit) };
  }

  private keep(id: string, body: KeptBody): void {
    this.forget(id);
    this.kept.set(id, body);
    this.keptBytes += body.bytes;
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= DRAFTS_KEPT && (this.keptBytes <= KEPT_BYTES || oldest === id)) break;
      this.forget(oldest);
    }
  }

  private forget(id: string): void {
    this.keptBytes -= this.kept.get(id)?.bytes ?? 0;
    this.kept.delete(id);
  }
}
