import { performance } from 'node:perf_hooks';
import type { ProxyDetails } from '../../../shared/workbench/history-contract';
import type { Caller } from '../access/authenticator';
import { type BodyKind, type CompiledBody, type ExpressionEngine, type TokenRecord, writesNothing } from '../expressions';
import { maskCardNumbers } from '../history/card-numbers';
import type { RequestLogEntry } from '../history/request-log';
import { headersForLog, type ResolvedSecrets } from '../server/log-headers';
import { ApiProblem } from '../server/problem';
import { EchoedValues, maskedValue, maskPlaintext } from './echoed-values';
import { type AnswerCapture, keptAnswer } from './kept-answer';
import { type AnyUnitRunner, type Answer, answerOf } from '../storage/unit';
import type { TokenService } from '../vault/token-service';

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
  /** Made from them once (recordedEchoes), for what the call's record keeps besides the answer. */
  recorded?: EchoedValues;
  outbound?: { method: string; headers: string[]; bytes: number };
  /** The answer body as it streamed, when Settings has history keep answers; masked before it is recorded. */
  answer?: AnswerCapture;
  response?: { status: number; headers: string[]; bytes: number; headersMs: number };
  failure?: ApiProblem & { kind?: string; reason?: string };
  /** The client encryption keys that decrypted the call's PFX-ENCRYPTED header, as each was used. */
  clientEncryptionKeys?: string[];
  /** A pre-configured proxy's call: which proxy, and each step its pipeline went through, recorded as it went. */
  preconfigured?: {
    id: string;
    name: string;
    trace: TraceStep[];
    outboundBody?: string | null;
    /** Whether the body that left is the one detokenization made (no code changed it): the reveal renders that one. */
    revealable?: boolean;
    /** Whether code gave the headers that left (else they are the client's, filtered). */
    headersFromCode?: boolean;
    /** Fills in what the steps changed, masked: once the answer is out, before the entry is made. */
    settle(): void;
  };
}

/** One step of a pre-configured proxy's pipeline as history shows it: what it changed, masked, and how long it took. */
export type TraceStep = NonNullable<ProxyDetails['trace']>[number];

/** History keeps a readable prefix of large bodies; the byte count says how much there was. */
export const BODY_KEPT = 16 * 1024;

function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

/** Each token the request used, masked as a masked read shows it (maskedRecord). */
function maskedRecords(render: NonNullable<ProxyExchange['render']>, tokens: TokenService<AnyUnitRunner>): Map<string, TokenRecord> {
  const masked = new Map<string, TokenRecord>();
  for (const [id, record] of render.records) masked.set(id, tokens.maskedRecord(record));
  return masked;
}

/**
 * What the request detokenized, to mask wherever the destination's answer repeats it (undefined: it detokenized
 * nothing); each expression's mask is evaluated over the masked tokens only once an answer repeats a value.
 */
export function echoesOf(exchange: ProxyExchange, tokens: TokenService<AnyUnitRunner>): EchoedValues | undefined {
  const { render, detokenized } = exchange;
  if (!render || !detokenized?.length) return undefined;
  return (exchange.echoes ??= new EchoedValues(detokenized, () => render.compiled.evaluateEach(maskedRecords(render, tokens))));
}

/**
 * What the call detokenized, to mask wherever the record of the call (a trace, the headers that left) repeats it, by
 * the rule of maskedValue: no token's mask is evaluated (undefined: it detokenized nothing).
 */
export function recordedEchoes(exchange: ProxyExchange): EchoedValues | undefined {
  const { detokenized } = exchange;
  if (!detokenized?.length) return undefined;
  return (exchange.recorded ??= new EchoedValues(detokenized));
}

/** Header pairs with each value masked (maskPlaintext). */
function maskedHeaders(shown: [string, string][], echoes: EchoedValues | undefined): [string, string][] {
  const values = maskPlaintext(shown.map((pair) => pair[1]), echoes);
  return shown.map(([name], i) => [name, values[i]]);
}

const round = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms * 1000) / 1000);

/**
 * The outbound body as the destination received it, as far as history keeps a body, with each value the expressions
 * wrote replaced by what maskedValue shows of it, placed where the value went (no expression evaluated again); any
 * card number the client wrote itself is still there (null: no expression).
 */
export function outboundValuesMasked({ render, detokenized }: ProxyExchange): string | null {
  // A render that failed part way never left: it has no view.
  if (!render || detokenized?.length !== render.compiled.expressionCount) return null;
  return render.compiled.renderResults(detokenized.map(maskedValue), BODY_KEPT, render.chunks);
}

/** outboundValuesMasked with every card number masked too, for a trace step that keeps it. */
export function maskedOutboundView(exchange: ProxyExchange): string | null {
  const view = outboundValuesMasked(exchange);
  return view === null ? null : maskCardNumbers(view).text;
}

/**
 * The outbound body's place in the entry (`detokenized_body`: null until a read puts the kept body in, see
 * outboundText), and the kind of a body the workbench can reveal: one detokenization made and no code changed since.
 */
function maskedOutbound({ render, preconfigured }: ProxyExchange): Pick<NonNullable<ProxyDetails['outbound']>, 'detokenized_body' | 'body_kind'> {
  const revealable = render?.utf8 && (preconfigured?.revealable ?? true);
  return revealable ? { detokenized_body: null, body_kind: render.kind } : { detokenized_body: null };
}

/** The template of a revealable outbound body (see maskedOutbound): the body as sent, as far as history kept it. */
function keptTemplate(entry: RequestLogEntry, expressions: ExpressionEngine): CompiledBody | null {
  const kind = entry.kind === 'proxy' ? (entry.details as ProxyDetails | undefined)?.outbound?.body_kind : undefined;
  const sent = entry.request_body as { bytes?: unknown; text?: unknown } | undefined;
  if (!kind || typeof sent?.text !== 'string') return null;
  const whole = typeof sent.bytes === 'number' && sent.bytes <= BODY_KEPT;
  return whole ? expressions.compileBody(sent.text, kind) : expressions.compileBodyStart(sent.text, kind);
}

/**
 * The workbench's explicit reveal: the outbound body with its plaintext, as far as history kept the body, rendered
 * from the tokens as the vault holds them now and under the access rules of the application that sent the request
 * (a token deleted since is a 400, a rule that no longer lets it use a token a 403). The result goes to the one
 * caller that asked; it is never stored or logged.
 */
export function revealedOutbound<R extends AnyUnitRunner>(
  entry: RequestLogEntry | undefined,
  tokens: TokenService<R>,
  expressions: ExpressionEngine,
  callerFor: (applicationId: string) => Caller | undefined,
): Answer<R, string> {
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
  const records = tokens.tokensForExpressions(compiled.tokenIds, caller, 'token:use') as Map<string, TokenRecord> | Promise<Map<string, TokenRecord>>;
  return answerOf<R, Map<string, TokenRecord>, string>(records, (found) => compiled.render(found).slice(0, BODY_KEPT));
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

type Trace = NonNullable<ProxyDetails['trace']>;

/** A trace as history keeps it: each secret the engine resolved into the call (the workbench's, a file proxy's) as its reference. */
const referencedTrace = (trace: Trace, secrets: ResolvedSecrets | undefined): Trace =>
  secrets
    ? trace.map((step) => ({
        ...step,
        ...(step.headers && { headers: referenced(step.headers, secrets) }),
        ...(typeof step.body === 'string' && { body: secrets.asReferences(step.body) }),
        ...(step.logs && { logs: step.logs.map((line) => secrets.asReferences(line)) }),
      }))
    : trace;

/**
 * The proxy call's history details, and the answer body history keeps (masked), which the entry stores apart: it is
 * read with one entry at a time, never with a list. The outbound body comes apart too (`outboundText`): the history
 * worker masks its card numbers, off the thread that serves requests, and stores it beside the entry. The ephemeral
 * proxy's is outboundValuesMasked; a pre-configured proxy's is the one its trace keeps, as its transforms left it, masked.
 * @param secrets the workbench's references resolved in the request: written back as references wherever the request
 * or the destination's headers repeat a value
 */
export function proxyLogDetails(
  exchange: ProxyExchange,
  tokens: TokenService<AnyUnitRunner>,
  secrets?: ResolvedSecrets,
): { details: ProxyDetails; answerText?: string; outboundText?: string } {
  exchange.preconfigured?.settle();
  const { response, failure, outbound, answer, preconfigured } = exchange;
  // The body left with the secrets the engine resolved into it; history keeps their references.
  const referencedText = (text: string | null) => (text !== null && secrets ? secrets.asReferences(text) : text);
  // Kept beside the entry, not in its JSON, for both kinds of call (see RequestLog's outbound_text).
  const outboundText = referencedText(outbound ? (preconfigured ? (preconfigured.outboundBody ?? null) : outboundValuesMasked(exchange)) : null);
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
      // Code may have put a detokenized value in a header; headers as the client sent them hold none.
      headers: maskedHeaders(headersForLog(outbound.headers, secrets), exchange.preconfigured?.headersFromCode ? recordedEchoes(exchange) : undefined),
      bytes: outbound.bytes,
      ...maskedOutbound(exchange),
    },
    response: response && {
      status: response.status,
      headers: referenced(maskedHeaders(pairs(response.headers), echoesOf(exchange, tokens)), secrets),
      bytes: response.bytes,
      ...(kept && { body: kept.facts }),
    },
    failure: failure && { status: failure.status, kind: failure.kind ?? null, reason: failure.reason ?? null, detail: failure.detail ?? null },
    ...(exchange.clientEncryptionKeys && { client_encryption_keys: exchange.clientEncryptionKeys }),
    ...(exchange.preconfigured && { proxy: { id: exchange.preconfigured.id, name: exchange.preconfigured.name }, trace: referencedTrace(exchange.preconfigured.trace, secrets) }),
    timings: {
      detokenize_ms: round(exchange.detokenizeMs),
      destination_headers_ms: round(response?.headersMs),
      total_ms: round(performance.now() - exchange.startedAt),
    },
  };
  const answerText = kept?.text || undefined;
  return { details, answerText, outboundText: outboundText ?? undefined };
}
