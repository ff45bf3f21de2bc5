import { z } from 'zod';
import type { ImportedRequests } from '../../../shared/workbench/collection-contract';
import { draftOf, type SentRequest } from '../../../shared/workbench/request-draft';
import { ApiProblem } from '../server/problem';

/** A HAR of a whole session can hold thousands of requests; the Composer lists this many to pick from. */
const MAX_IMPORTED = 100;

/** The hosted service's hosts: a request to one of them is a vault API call (or, at /proxy, a proxied one). */
const HOSTED_SERVICE = /(^|\.)basistheory\.com$/i;

const pairSchema = z.object({ name: z.string(), value: z.string().default('') });
/** What the import reads of a HAR request (HAR 1.2 `request`); everything else in the file is left alone. */
const harRequestSchema = z.object({
  method: z.string().min(1),
  url: z.string().min(1),
  headers: z.array(pairSchema).default([]),
  /** Where curl's -b and some HAR writers put the cookies, apart from the headers. */
  cookies: z.array(pairSchema).default([]),
  queryString: z.array(pairSchema).default([]),
  postData: z
    .object({ mimeType: z.string().optional(), text: z.string().optional(), params: z.array(pairSchema).optional() })
    .optional(),
});
type HarRequest = z.output<typeof harRequestSchema>;
const harSchema = z.union([
  z.object({ log: z.object({ entries: z.array(z.object({ request: harRequestSchema })) }) }).transform(({ log }) => log.entries.map((entry) => entry.request)),
  z.object({ request: harRequestSchema }).transform(({ request }) => [request]),
  harRequestSchema.transform((request) => [request]),
]);

/** Where the engine answers, so a request to it (copied from its own History or HAR) is taken as one to the service. */
export interface ImportContext {
  serviceUrl: string;
  headerPrefix: string;
}

/**
 * A cURL command as the HAR request it sends, parsed by curlconverter (curl's own option grammar, not a tokenizer).
 * Loaded on the first paste: it is large, and every engine start (each test's, each `serve`'s) would load it otherwise.
 */
async function harOfCurl(command: string): Promise<{ requests: HarRequest[]; notes: string[] }> {
  const { toHarStringWarn } = await import('curlconverter');
  let parsed: [string, [string, string][]];
  try {
    parsed = toHarStringWarn(command);
  } catch (error) {
    throw new ApiProblem(400, `This is not a cURL command curl would run: ${firstLine(error)}`);
  }
  const [har, warnings] = parsed;
  const refused = warnings.find(([code]) => code === 'form' || code === 'multipart');
  if (refused) throw new ApiProblem(400, 'A multipart body (-F) cannot be composed here: the Composer sends JSON, form, XML or text bodies.');
  const notes = warnings.map(([code, message]) => (code === 'unsafe-data' ? `The body names a file (${firstLine(message)}): paste its content in the body.` : firstLine(message)));
  return { requests: harSchema.parse(JSON.parse(har)), notes };
}

const firstLine = (error: unknown) => String(error instanceof Error ? error.message : error).split('\n')[0];

/** The body a HAR request sends: its text, or its form fields written as a form body. */
function bodyOf(request: HarRequest): string {
  const data = request.postData;
  if (data?.text !== undefined) return data.text;
  if (data?.params) return new URLSearchParams(data.params.map(({ name, value }) => [name, value])).toString();
  return '';
}

/** The address of a request to the hosted service or to this engine (from its own History or HAR); null for any other. */
export function serviceUrl(target: string, context: ImportContext): URL | null {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  const service = new URL(context.serviceUrl);
  const toService = HOSTED_SERVICE.test(url.hostname) || (url.port === service.port && ['localhost', '127.0.0.1', '[::1]', service.hostname].includes(url.hostname));
  return toService ? url : null;
}

/** A HAR request as the Composer's: through the proxy when it went to /proxy or to a third party, else a vault API call. */
function imported(request: HarRequest, context: ImportContext, common: string[]): ImportedRequests['requests'][number] {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new ApiProblem(400, `"${request.url}" is not a URL: the request needs its whole address, with http:// or https://.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiProblem(400, `A ${url.protocol} address cannot be imported: the Composer sends http and https requests only.`);
  }
  // HAR writers differ on whether the URL carries the query: when it does not, queryString does.
  if (url.search === '') for (const { name, value } of request.queryString) url.searchParams.append(name, value);
  const toService = serviceUrl(url.href, context) !== null;
  const headers = request.headers.map(({ name, value }) => [name, value] as const);
  if (request.cookies.length > 0 && !headers.some(([name]) => name.toLowerCase() === 'cookie')) {
    headers.push(['Cookie', request.cookies.map(({ name, value }) => `${name}=${value}`).join('; ')]);
  }
  const proxied = /^\/proxy(\/|$)/.test(url.pathname);
  const notes = [...common];
  let sent: SentRequest = { method: request.method, path: url.pathname + url.search, headers, body: bodyOf(request) };
  if (!toService) {
    // A call straight to a third party: the Composer sends it through the proxy, so expressions in it get detokenized.
    sent = { ...sent, path: `/proxy${url.pathname === '/' ? '' : url.pathname}${url.search}`, headers: [...headers, [`${context.headerPrefix}-PROXY-URL`, url.origin]] };
    notes.push(`It went to ${url.host} directly: here it goes there through the proxy.`);
  }
  const draft = draftOf(sent, proxied || !toService ? 'proxy' : 'api', context.headerPrefix);
  // The workbench moves the request's credentials into Secrets, and says so here.
  return { label: `${request.method.toUpperCase()} ${request.url}`, request: draft.draft, notes: [...notes, ...draft.notes], moved_aside: [] };
}

/**
 * Reads what a user pasted: a cURL command (parsed as curl would) or a HAR, a HAR entry or a HAR request. Each request
 * becomes one the Composer can send, with notes on what changed on the way; a request to the hosted service keeps its
 * meaning here (its /proxy stays a proxied call, its BT- headers the engine's own).
 */
export async function importRequests(text: string, context: ImportContext): Promise<ImportedRequests> {
  const trimmed = text.trim();
  if (trimmed === '') throw new ApiProblem(400, 'Paste a cURL command or a HAR to import.');
  let format: ImportedRequests['format'];
  let found: { requests: HarRequest[]; notes: string[] };
  if (/^curl\b/.test(trimmed)) {
    format = 'curl';
    found = await harOfCurl(trimmed);
  } else if (/^[[{]/.test(trimmed)) {
    format = 'har';
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (error) {
      throw new ApiProblem(400, `This looks like JSON but is not: ${firstLine(error)}. Paste a whole HAR file or one entry of it.`);
    }
    const har = harSchema.safeParse(json);
    if (!har.success) throw new ApiProblem(400, 'This JSON is not a HAR: expected {"log": {"entries": [...]}}, one entry {"request": {...}}, or a request with method and url.');
    found = { requests: har.data, notes: [] };
  } else {
    throw new ApiProblem(400, 'Paste a cURL command (starting with curl) or a HAR (JSON, from a browser\'s or HTTP Toolkit\'s export).');
  }
  if (found.requests.length === 0) throw new ApiProblem(400, 'The HAR holds no requests.');
  const requests = found.requests.slice(0, MAX_IMPORTED).map((request) => imported(request, context, found.notes));
  const left = found.requests.length - requests.length;
  return { format, requests, ...(left > 0 && { left_out: left }) };
}
