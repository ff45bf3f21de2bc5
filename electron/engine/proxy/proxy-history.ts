import { performance } from 'node:perf_hooks';
import type { ProxyDetails } from '../../../shared/workbench/history-contract';
import type { Caller } from '../access/authenticator';
import { type BodyKind, type CompiledBody, type ExpressionEngine, type TokenRecord, writesNothing } from '../expressions';
import type { RequestLogEntry } from '../history/request-log';
import { prefixOf } from '../server/body-chunks';
import { headersForLog, type ResolvedSecrets } from '../server/log-headers';
import { ApiProblem } from '../server/problem';
import { EchoedValues } from './echoed-values';
import { type AnswerCapture, keptAnswer } from './kept-answer';
import { REDACTED, type TokenService } from '../vault/token-service';

/** What one proxy call did, filled in as it goes; the history entry is made from it once the call is over. */
export interface ProxyExchange {
  startedAt: number;
  /** The destination URL (href). */
  destination?: string;
  warnings: string[];
  expressionCount: number;
  tokenIds: readonly string[];
  detokenizeMs?: number;
  /**
   * How the body's expressions were rendered. `chunks`: the body's, when its template was compiled from them (its
   * places are bytes); a body that is not UTF-8 is, and its masked view is rendered over them (renderBytes), since
   * history keeps no text of such a body.
   */
  render?: { kind: BodyKind; compiled: CompiledBody; records: ReadonlyMap<string, TokenRecord>; utf8: boolean; chunks?: readonly Buffer[] };
  /** What the body's expressions evaluated to, in plaintext: masked wherever the destination's answer repeats one. */
  detokenized?: unknown[];
  /** Made from them once (echoesOf), for the workbench's view of the answer and for history's. */
  echoes?: EchoedValues;
  outbound?: { method: string; headers: string[]; bytes: number };
  /** The answer body as it streamed, when Settings has history keep answers; masked before it is recorded. */
  answer?: AnswerCapture;
  response?: { status: number; headers: string[]; bytes: number; headersMs: number };
  failure?: ApiProblem & { kind?: string; reason?: string };
  /** A pre-configured proxy's call: which proxy, and each step its pipeline went through, recorded as it went. */
  preconfigured?: {
    id: string;
    name: string;
    trace: TraceStep[];
    outboundBody?: string | null;
    /** Fills in what the steps changed, masked: once the answer is out, before the entry is made. */
    settle(): void;
  };
}

/** One step of a pre-configured proxy's pipeline as history shows it: what it changed, masked, and how long it took. */
export type TraceStep = NonNullable<ProxyDetails['trace']>[number];

/** History keeps a readable prefix of large bodies; the byte count says how much there was. */
export const BODY_KEPT = 16 * 1024;
/** Above this, the masked outbound body is not rendered for history: it would cost as much as the request. */
const MASKED_BODY_LIMIT = 64 * 1024;

function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

/** Each token the request used, masked as a masked read shows it (maskedRecord). */
function maskedRecords(render: NonNullable<ProxyExchange['render']>, tokens: TokenService): Map<string, TokenRecord> {
  const masked = new Map<string, TokenRecord>();
  for (const [id, record] of render.records) masked.set(id, tokens.maskedRecord(record));
  return masked;
}

/**
 * What the request detokenized, to mask wherever the destination's answer repeats it (undefined: it detokenized
 * nothing); each expression's mask is evaluated over the masked tokens only once an answer repeats a value.
 */
export function echoesOf(exchange: ProxyExchange, tokens: TokenService): EchoedValues | undefined {
  const { render, detokenized } = exchange;
  if (!render || !detokenized?.length) return undefined;
  return (exchange.echoes ??= new EchoedValues(detokenized, () => render.compiled.evaluateEach(maskedRecords(render, tokens))));
}

/**
 * `texts` with every value the request detokenized masked wherever they repeat one (in the forms EchoedValues knows):
 * the destination's response headers, a pre-configured proxy's trace.
 */
export function maskEchoes(texts: string[], echoes: EchoedValues | undefined): string[] {
  // One search over all the values: an answer that repeats nothing, nearly every one, costs no more.
  if (!echoes || echoes.maskLatin1(texts.join('\n')).masked === 0) return texts;
  return texts.map((text) => echoes.maskLatin1(text).text);
}

/** The destination's response headers, with every detokenized value in them masked. */
function maskedResponseHeaders(headers: readonly string[], echoes: EchoedValues | undefined): [string, string][] {
  const shown = pairs(headers);
  const values = maskEchoes(shown.map((pair) => pair[1]), echoes);
  return shown.map(([name], i) => [name, values[i]]);
}

const round = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms * 1000) / 1000);

/**
 * The outbound body as the destination received it, but with every detokenized value masked as a masked read would
 * show it: the history shows where values went without ever holding them. A UTF-8 body is masked only when history is
 * read (completeProxyEntry), from the part of it history keeps, so the masking costs a request nothing; the entry says
 * how to read the body instead. Of a body that is not UTF-8 history keeps no text, so it is masked now, from the
 * records the request used, up to a size.
 */
function maskedOutbound(exchange: ProxyExchange, tokens: TokenService): Pick<NonNullable<ProxyDetails['outbound']>, 'detokenized_body' | 'body_kind'> {
  const { render, preconfigured } = exchange;
  // A pre-configured proxy's transforms may have changed the body after it was detokenized: its trace has it as sent.
  if (preconfigured) return { detokenized_body: preconfigured.outboundBody ?? null };
  if (!render) return { detokenized_body: null };
  if (render.utf8) return { body_kind: render.kind };
  if ((exchange.outbound?.bytes ?? 0) > MASKED_BODY_LIMIT) return { detokenized_body: null };
  try {
    return { detokenized_body: Buffer.concat(render.compiled.renderBytes(maskedRecords(render, tokens), render.chunks!)).toString('utf8').slice(0, BODY_KEPT) };
  } catch {
    return { detokenized_body: REDACTED };
  }
}

/**
 * The body the expressions were rendered into, with each token's mask in place of its data, now (a pre-configured
 * proxy's trace records it as the call happens): as far as history keeps a body.
 */
export function maskedRenderNow(exchange: ProxyExchange, tokens: TokenService): string | null {
  const { render } = exchange;
  if (!render) return null;
  const masked = new Map<string, TokenRecord>();
  for (const [id, record] of render.records) masked.set(id, tokens.maskedRecord(record));
  try {
    if (!render.chunks) return render.compiled.render(masked).slice(0, BODY_KEPT);
    const pieces = render.compiled.renderBytes(masked, render.chunks);
    return Buffer.from(prefixOf({ chunks: pieces, size: pieces.reduce((n, piece) => n + piece.length, 0) }, BODY_KEPT)).toString('utf8');
  } catch {
    return REDACTED;
  }
}

/** The template of a deferred outbound body (see maskedOutbound): the body as sent, as far as history kept it. */
function keptTemplate(entry: RequestLogEntry, expressions: ExpressionEngine): CompiledBody | null {
  const kind = entry.kind === 'proxy' ? (entry.details as ProxyDetails | undefined)?.outbound?.body_kind : undefined;
  const sent = entry.request_body as { bytes?: unknown; text?: unknown } | undefined;
  if (!kind || typeof sent?.text !== 'string') return null;
  const whole = typeof sent.bytes === 'number' && sent.bytes <= BODY_KEPT;
  return whole ? expressions.compileBody(sent.text, kind) : expressions.compileBodyStart(sent.text, kind);
}

/**
 * Fills in, for display, the masked outbound body of a proxy entry that deferred it (see maskedOutbound): its body as
 * sent, rendered with each token's mask as it is now (as far as history kept it: the first BODY_KEPT bytes); a token
 * gone since redacts the body.
 */
export function completeProxyEntry(entry: RequestLogEntry, tokens: TokenService, expressions: ExpressionEngine): void {
  const outbound = entry.kind === 'proxy' ? (entry.details as ProxyDetails | undefined)?.outbound : undefined;
  if (!outbound || outbound.detokenized_body !== undefined) return;
  try {
    const compiled = keptTemplate(entry, expressions);
    if (compiled) outbound.detokenized_body = compiled.render(tokens.maskedRecordsById(compiled.tokenIds)).slice(0, BODY_KEPT);
  } catch {
    outbound.detokenized_body = REDACTED;
  }
}

/**
 * The workbench's explicit reveal: the outbound body with its plaintext, as far as history kept the body, rendered
 * from the tokens as the vault holds them now and under the access rules of the application that sent the request
 * (a token deleted since is a 400, a rule that no longer lets it use a token a 403). The result goes to the one
 * caller that asked; it is never stored or logged.
 */
export function revealedOutbound(
  entry: RequestLogEntry | undefined,
  tokens: TokenService,
  expressions: ExpressionEngine,
  callerFor: (applicationId: string) => Caller | undefined,
): string {
  if (!entry) throw new ApiProblem(404, 'No such request in the history');
  let compiled: CompiledBody | null;
  try {
    compiled = keptTemplate(entry, expressions);
  } catch {
    compiled = null;
  }
  if (!compiled) {
    throw new ApiProblem(409, 'This request has no detokenized body to reveal: it was not proxied, held no expression in a UTF-8 body, or failed before it was forwarded');
  }
  const caller = entry.application_id === null ? undefined : callerFor(entry.application_id);
  if (!caller) throw new ApiProblem(409, 'The application that sent this request no longer exists');
  return compiled.render(tokens.tokensForExpressions(compiled.tokenIds, caller, 'token:use')).slice(0, BODY_KEPT);
}

/** The UTF-16 offset, in the text of a UTF-8 body, of a byte offset in its chunks. */
function textOffset(chunks: readonly Buffer[], bytes: number): number {
  const prefix: Buffer[] = [];
  for (let i = 0, left = bytes; left > 0; left -= chunks[i++].length) prefix.push(chunks[i].subarray(0, left));
  return Buffer.concat(prefix).toString('utf8').length;
}

/**
 * The expressions the proxy wrote as nothing, each with its place in the body as the client sent it (the text's
 * UTF-16 offsets, as an editor counts them): what the workbench shows beside the answer. The expressions' own text,
 * never a value.
 */
function emptyExpressions({ render, detokenized }: ProxyExchange): NonNullable<ProxyDetails['expressions']['empty']> | undefined {
  if (!render?.utf8 || !detokenized?.some(writesNothing)) return undefined;
  const { compiled, chunks } = render;
  const place = (at: number) => (chunks ? textOffset(chunks, at) : at);
  return detokenized.flatMap((value, index) => {
    if (!writesNothing(value)) return [];
    const { source, start, end } = compiled.expressionAt(index);
    return [{ expression: source, from: place(start), to: place(end) }];
  });
}

const referenced = (headers: [string, string][], secrets: ResolvedSecrets | undefined) =>
  secrets ? headers.map(([name, value]): [string, string] => [name, secrets.asReferences(value)]) : headers;

/**
 * The proxy call's history details, and the answer body history keeps (masked), which the entry stores apart: it is
 * read with one entry at a time, never with a list.
 * @param secrets the workbench's references resolved in the request: written back as references wherever the request
 * or the destination's headers repeat a value
 */
export function proxyLogDetails(
  exchange: ProxyExchange,
  tokens: TokenService,
  secrets?: ResolvedSecrets,
): { details: ProxyDetails; answerText?: string } {
  exchange.preconfigured?.settle();
  const { response, failure, outbound, answer } = exchange;
  const empty = emptyExpressions(exchange);
  // A failure once the destination answered is an answer cut off mid-body.
  const kept = answer && response && keptAnswer(answer, response, echoesOf(exchange, tokens), failure !== undefined);
  const details: ProxyDetails = {
    // The answer's source, the split the workbench makes unmistakable.
    status_source: response ? 'destination' : 'proxy',
    destination_url: exchange.destination ?? null,
    warnings: exchange.warnings,
    expressions: { count: exchange.expressionCount, token_ids: exchange.tokenIds, ...(empty && { empty }) },
    outbound: outbound && {
      method: outbound.method,
      url: exchange.destination,
      headers: headersForLog(outbound.headers, secrets),
      bytes: outbound.bytes,
      ...maskedOutbound(exchange, tokens),
    },
    response: response && {
      status: response.status,
      headers: referenced(maskedResponseHeaders(response.headers, echoesOf(exchange, tokens)), secrets),
      bytes: response.bytes,
      ...(kept && { body: kept.facts }),
    },
    failure: failure && { status: failure.status, kind: failure.kind ?? null, reason: failure.reason ?? null, detail: failure.detail ?? null },
    ...(exchange.preconfigured && { proxy: { id: exchange.preconfigured.id, name: exchange.preconfigured.name }, trace: exchange.preconfigured.trace }),
    timings: {
      detokenize_ms: round(exchange.detokenizeMs),
      destination_headers_ms: round(response?.headersMs),
      total_ms: round(performance.now() - exchange.startedAt),
    },
  };
  return kept?.text ? { details, answerText: kept.text } : { details };
}
