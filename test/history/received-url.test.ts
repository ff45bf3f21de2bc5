import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyAsHar } from '../../electron/engine/history/har-export';
import { receivedTarget, receivedUrl } from '../../shared/workbench/received-url';
import type { SentHistoryEntry } from '../../shared/workbench/history-contract';

/**
 * A request target as the engine received it, made into a URL of the engine's own origin (the HAR export, Copy as
 * cURL, replay): against hostile targets, it never throws, never names another host, and keeps every byte.
 */
const ORIGIN = 'http://127.0.0.1:4780';
const RUNS = 2_000;
const SEED = 20261207;

/** Pieces that have broken URL building: scheme-relative and other schemes, broken escapes, dot segments, whitespace URL parsers drop. */
const PIECES = ['/', '//', '\\', '%', '%zz', '%2e', '%2F', '.', '..', '?', '#', '@', ':', 'evil.example', 'http://', 'ftp:', '*', ' ', '\t', '\n', '\r', '\0', '[', ']', '"', '<', '`', '{', 'é', '\u{1F389}', '\ud800', 'a', '=', '&'];
const hostile = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** What a URL string spells in bytes: its escapes decoded, every other character as UTF-8 (a lone surrogate as U+FFFD). */
function bytesOf(text: string): number[] {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      // One code point, whole: a surrogate pair stays together, a lone one becomes U+FFFD.
      const point = text.codePointAt(i)!;
      if (point > 0xffff) i++;
      bytes.push(...new TextEncoder().encode(String.fromCodePoint(point)));
    }
  }
  return bytes;
}

const URL_CHARACTERS = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;

describe('receivedUrl', () => {
  it('is a URL of the engine origin, in URL characters only, spelling the target byte for byte', () => {
    fc.assert(
      fc.property(hostile, (target) => {
        const url = receivedUrl(ORIGIN, target);
        const parsed = new URL(url);
        expect(parsed.origin).toBe(ORIGIN);
        expect([parsed.username, parsed.password]).toEqual(['', '']);
        expect(url.startsWith(`${ORIGIN}/`)).toBe(true);
        const rest = url.slice(ORIGIN.length);
        expect(rest).toBe(receivedTarget(target));
        expect(rest).toMatch(URL_CHARACTERS);
        expect(bytesOf(rest)).toEqual(bytesOf(target.startsWith('/') ? target : `/${target}`));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('leaves a target that is already a clean path and query as it came', () => {
    const clean = fc.stringMatching(/^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*(\?[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*)?$/);
    fc.assert(
      fc.property(clean, (target) => {
        expect(receivedUrl(ORIGIN, target)).toBe(`${ORIGIN}${target}`);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(receivedUrl(ORIGIN, '/proxy/v1/charges?currency=eur&x=%20')).toBe(`${ORIGIN}/proxy/v1/charges?currency=eur&x=%20`);
  });
});

describe('the HAR export of hostile targets', () => {
  const entryWith = (path: string): SentHistoryEntry => ({
    id: '0190a000-0000-7000-8000-000000000000',
    at: '2026-12-07T10:00:00.000Z',
    kind: 'api',
    method: 'GET',
    path,
    status: 404,
    duration_ms: 1,
    application_id: null,
    trace_id: null,
    request_headers: [],
  });

  it("exports every entry with the engine's own origin and its query, whatever its path", () => {
    fc.assert(
      fc.property(hostile, (path) => {
        const [entry] = historyAsHar([entryWith(path)], ORIGIN, '0.0.0').log.entries;
        expect(new URL(entry.request.url).origin).toBe(ORIGIN);
        expect(entry.request.url).toBe(receivedUrl(ORIGIN, path));
        expect(Array.isArray(entry.request.queryString)).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
