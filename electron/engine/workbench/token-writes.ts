import { randomUUID } from 'node:crypto';
import type { ComposedRequest } from '../../../shared/workbench/composer-contract';
import type { Request, SentReply } from '../../../shared/workbench/methods';
import type { FrontDoor, SendTo, SentExchange } from './front-door';

type TokenWrite = Request<'writeToken'>;
type WriteResult = SentReply<'writeToken'>;

const JSON_BODY: [string, string] = ['Content-Type', 'application/json'];
const MERGE_PATCH_BODY: [string, string] = ['Content-Type', 'application/merge-patch+json'];

/** The request a client would send for this write: the API's own endpoint, body and headers. */
function requestFor(write: TokenWrite, headerPrefix: string): Omit<ComposedRequest, 'id' | 'application_id'> {
  const headers: [string, string][] = 'transaction_id' in write && write.transaction_id !== undefined ? [[`${headerPrefix}-TRANSACTION-ID`, write.transaction_id]] : [];
  switch (write.action) {
    case 'create':
      return { method: 'POST', path: '/tokens', headers: [...headers, JSON_BODY], body: JSON.stringify(write.token) };
    case 'create_many':
      return { method: 'POST', path: '/tokenize', headers: [...headers, JSON_BODY], body: JSON.stringify(write.tokens) };
    case 'update':
      return { method: 'PATCH', path: `/tokens/${encodeURIComponent(write.token_id)}`, headers: [...headers, MERGE_PATCH_BODY], body: JSON.stringify(write.patch) };
    case 'delete':
      return { method: 'DELETE', path: `/tokens/${encodeURIComponent(write.token_id)}`, headers, body: null };
    case 'create_intent':
      return { method: 'POST', path: '/token-intents', headers: [JSON_BODY], body: JSON.stringify(write.intent) };
    case 'delete_intent':
      return { method: 'DELETE', path: `/token-intents/${encodeURIComponent(write.intent_id)}`, headers: [], body: null };
  }
}

function parsed(base64: string): unknown {
  try {
    return JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

type Answer = { id?: unknown; _extras?: { deduplicated?: unknown }; detail?: unknown; errors?: unknown } | undefined;

/** The ids the answer names (never its data, which may be plaintext for an application that reads it so). */
function idsOf(write: TokenWrite, body: unknown): string[] {
  if (write.action === 'update' || write.action === 'delete') return [write.token_id];
  if (write.action === 'delete_intent') return [write.intent_id];
  const views = (write.action === 'create_many' && Array.isArray(body) ? body : [body]) as Answer[];
  return views.flatMap((view) => (typeof view?.id === 'string' ? [view.id] : []));
}

function resultOf(write: TokenWrite, exchange: SentExchange, headerPrefix: string): WriteResult {
  const { outcome } = exchange;
  if (outcome.kind !== 'response') {
    const detail = outcome.kind === 'unreachable' ? `The service could not be reached: ${outcome.detail}` : 'The request was cancelled';
    return { status: null, token_ids: [], deduplicated: false, problem: { detail }, trace_id: null };
  }
  const traceHeader = `${headerPrefix}-trace-id`.toLowerCase();
  const traceId = outcome.headers.find(([name]) => name.toLowerCase() === traceHeader)?.[1] ?? null;
  const body = parsed(outcome.body_base64) as Answer;
  if (outcome.status >= 400) {
    const errors = body?.errors && typeof body.errors === 'object' ? (body.errors as Record<string, string[]>) : undefined;
    const detail = typeof body?.detail === 'string' ? body.detail : `The API answered ${outcome.status}`;
    return { status: outcome.status, token_ids: [], deduplicated: false, problem: { detail, errors }, trace_id: traceId };
  }
  return {
    status: outcome.status,
    token_ids: idsOf(write, body),
    deduplicated: write.action === 'create' && body?._extras?.deduplicated === true,
    problem: null,
    trace_id: traceId,
  };
}

/**
 * The Tokens page's writes, sent to the service's own front door as the application with its workbench key: the API
 * validates them, its access rules apply, and history records them as it records a client's. The page hears how it
 * went and the ids, never the answer's body.
 */
export async function writeToken(frontDoor: FrontDoor, to: SendTo, headerPrefix: string, write: TokenWrite): Promise<WriteResult> {
  const request = { id: randomUUID(), application_id: write.application_id, ...requestFor(write, headerPrefix) };
  return resultOf(write, await frontDoor.send(request, { ...to, literal: true }), headerPrefix);
}
