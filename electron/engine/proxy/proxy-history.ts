import { performance } from 'node:perf_hooks';
import type { ProxyDetails } from '../../../shared/workbench/contract';
import type { BodyKind, CompiledBody, ExpressionEngine, TokenRecord } from '../expressions';
import type { RequestLogEntry } from '../history/request-log';
import { headersForLog } from '../server/log-headers';
import type { ApiProblem } from '../server/problem';
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
   * How the body's expressions were rendered. `binary`: the body's chunks when it is not UTF-8 (its template was
   * compiled from them), to render the masked view over (renderBytes); history keeps no text of such a body.
   */
  render?: { kind: BodyKind; compiled: CompiledBody; records: ReadonlyMap<string, TokenRecord>; binary?: readonly Buffer[] };
  outbound?: { method: string; headers: string[]; bytes: number };
  response?: { status: number; headers: string[]; bytes: number; headersMs: number };
  failure?: ApiProblem & { kind?: string };
}

/** History keeps a readable prefix of large bodies; the byte count says how much there was. */
export const BODY_KEPT = 16 * 1024;
/** Above this, the masked outbound body is not rendered for history: it would cost as much as the request. */
const MASKED_BODY_LIMIT = 64 * 1024;

function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
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
  const { render } = exchange;
  if (!render) return { detokenized_body: null };
  if (!render.binary) return { body_kind: render.kind };
  if ((exchange.outbound?.bytes ?? 0) > MASKED_BODY_LIMIT) return { detokenized_body: null };
  const masked = new Map<string, TokenRecord>();
  for (const [id, record] of render.records) masked.set(id, tokens.maskedRecord(record));
  try {
    return { detokenized_body: Buffer.concat(render.compiled.renderBytes(masked, render.binary)).toString('utf8').slice(0, BODY_KEPT) };
  } catch {
    return { detokenized_body: REDACTED };
  }
}

/**
 * Fills in, for display, the masked outbound body of a proxy entry that deferred it (see maskedOutbound): its body as
 * sent, rendered with each token's mask as it is now (as far as history kept it: the first BODY_KEPT bytes); a token
 * gone since redacts the body.
 */
export function completeProxyEntry(entry: RequestLogEntry, tokens: TokenService, expressions: ExpressionEngine): void {
  if (entry.kind !== 'proxy') return;
  const outbound = (entry.details as ProxyDetails | undefined)?.outbound;
  if (!outbound?.body_kind || outbound.detokenized_body !== undefined) return;
  const sent = entry.request_body as { bytes?: unknown; text?: unknown } | undefined;
  const text = sent?.text;
  if (typeof text !== 'string') return;
  try {
    const whole = typeof sent!.bytes === 'number' && sent!.bytes <= BODY_KEPT;
    const compiled = whole ? expressions.compileBody(text, outbound.body_kind) : expressions.compileBodyStart(text, outbound.body_kind);
    outbound.detokenized_body = compiled.render(tokens.maskedRecordsById(compiled.tokenIds)).slice(0, BODY_KEPT);
  } catch {
    outbound.detokenized_body = REDACTED;
  }
}

export function proxyLogDetails(exchange: ProxyExchange, tokens: TokenService, prefix: string): ProxyDetails {
  const { response, failure, outbound } = exchange;
  return {
    // The answer's source, the split the workbench makes unmistakable.
    status_source: response ? 'destination' : 'proxy',
    destination_url: exchange.destination ?? null,
    warnings: exchange.warnings,
    expressions: { count: exchange.expressionCount, token_ids: exchange.tokenIds },
    outbound: outbound && {
      method: outbound.method,
      url: exchange.destination,
      headers: headersForLog(outbound.headers, prefix),
      bytes: outbound.bytes,
      ...maskedOutbound(exchange, tokens),
    },
    response: response && { status: response.status, headers: pairs(response.headers), bytes: response.bytes },
    failure: failure && { status: failure.status, kind: failure.kind ?? null, detail: failure.detail ?? null },
    timings: {
      detokenize_ms: round(exchange.detokenizeMs),
      destination_headers_ms: round(response?.headersMs),
      total_ms: round(performance.now() - exchange.startedAt),
    },
  };
}
