import type { SentHistoryEntry } from '../../../shared/workbench/history-contract';
import { receivedUrl } from '../../../shared/workbench/received-url';

/** HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), as much of it as History keeps. */
interface HarHeader {
  name: string;
  value: string;
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    entries: HarEntry[];
  };
}

// A type, not an interface: the contract reads entries as plain records.
type HarEntry = {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData?: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    content: { size: number; mimeType: string; text?: string; comment?: string };
    redirectURL: '';
    headersSize: -1;
    bodySize: -1;
  };
  cache: Record<string, never>;
  timings: { send: 0; wait: number; receive: 0 };
  comment?: string;
  /** Tokenbench's own facts (HAR allows fields that start with `_`): who sent it and who answered, and what left for the destination. */
  _tokenbench: Record<string, unknown>;
};

/** What HAR needs of a proxy entry's details; older versions wrote other shapes, which export without them. */
interface ProxyFacts {
  status_source?: 'destination' | 'proxy';
  destination_url?: string | null;
  warnings?: string[];
  response?: { status: number; headers: [string, string][]; bytes: number; body?: { text: string | null; masked: number; not_kept: string | null } };
  outbound?: { method: string; url?: string; headers: [string, string][]; detokenized_body?: string | null };
  failure?: { status: number; kind: string | null; detail: string | null };
}

const pairs = (headers: readonly (readonly [string, string])[]): HarHeader[] => headers.map(([name, value]) => ({ name, value }));
const headerOf = (headers: readonly (readonly [string, string])[], name: string) =>
  headers.find(([n]) => n.toLowerCase() === name)?.[1];

/** The answer body as History kept it (masked), or what the HAR says in its place. */
function answerContent(received: ProxyFacts['response']): { text?: string; comment: string } {
  const body = received?.body;
  if (!body) return { comment: 'Tokenbench keeps answer bodies only when Settings (History) asks it to' };
  if (body.text === null) return { comment: body.not_kept ?? 'not kept' };
  return { text: body.text, comment: `masked by Tokenbench before it was kept: ${body.masked} ${body.masked === 1 ? 'value' : 'values'}` };
}

/** The request body as History keeps it, as text: as sent (with its expressions), or the recorded JSON (masked). */
function bodyText(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  // A JSON body is kept as parsed, so it may be a bare number or boolean, which `in` cannot look into.
  if (typeof body === 'object' && 'text' in body) return typeof body.text === 'string' ? body.text : null;
  return JSON.stringify(body);
}

function harEntry(entry: SentHistoryEntry, serviceUrl: string): HarEntry {
  const url = receivedUrl(serviceUrl, entry.path);
  const queryAt = url.indexOf('?');
  const facts = (entry.kind === 'proxy' ? entry.details : undefined) as ProxyFacts | undefined;
  const text = bodyText(entry.request_body);
  const received = facts?.response;
  const type = headerOf(entry.request_headers, 'content-type') ?? 'application/octet-stream';
  return {
    startedDateTime: new Date(Date.parse(entry.at) - entry.duration_ms).toISOString(),
    time: entry.duration_ms,
    request: {
      method: entry.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(entry.request_headers),
      queryString: queryAt === -1 ? [] : [...new URLSearchParams(url.slice(queryAt + 1))].map(([name, value]) => ({ name, value })),
      ...(text === null ? {} : { postData: { mimeType: type, text } }),
      headersSize: -1,
      bodySize: text === null ? 0 : Buffer.byteLength(text),
    },
    response: {
      status: entry.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(received?.headers ?? []),
      content: {
        size: received?.bytes ?? -1,
        mimeType: (received && headerOf(received.headers, 'content-type')) ?? 'x-unknown',
        ...answerContent(received),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: entry.duration_ms, receive: 0 },
    _tokenbench: {
      kind: entry.kind,
      trace_id: entry.trace_id,
      application_id: entry.application_id,
      // Only on the workbench's own requests: the page that made it, or null when the call named none.
      ...(entry.workbench_page !== undefined && { workbench_page: entry.workbench_page }),
      ...(entry.workbench_environment !== undefined && { workbench_environment: entry.workbench_environment }),
      ...(entry.workbench_person !== undefined && { workbench_person: entry.workbench_person }),
      transaction_id: entry.transaction_id ?? null,
      // The workbench's own reveal or change, as History says it: what, by id, and in words.
      ...(entry.kind === 'workbench' && entry.details),
      ...(facts && {
        status_source: facts.status_source,
        destination_url: facts.destination_url,
        warnings: facts.warnings,
        failure: facts.failure,
        outbound: facts.outbound && { ...facts.outbound, headers: pairs(facts.outbound.headers) },
      }),
    },
  };
}

/**
 * History as HAR, for Chromium's and HTTP Toolkit's importers: each request as sent to Tokenbench (token data
 * masked and keys cut to a hint, as History keeps them), and for a proxied one the destination's status and headers,
 * its answer body when History kept it (masked), and, under `_tokenbench`, what left for it, masked. Entries are given newest first; HAR lists them oldest first.
 */
export function historyAsHar(entries: readonly SentHistoryEntry[], serviceUrl: string, version: string): Har {
  return {
    log: {
      version: '1.2',
      creator: { name: 'Tokenbench', version },
      entries: [...entries].reverse().map((entry) => harEntry(entry, serviceUrl)),
    },
  };
}
