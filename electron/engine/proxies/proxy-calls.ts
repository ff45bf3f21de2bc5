/**
 * Invoking a pre-configured proxy (docs/api.md, Invoking a pre-configured proxy), in the vendor's order: tokenize
 * transforms, detokenization, the code transform, header expressions, the destination, then (on a 2xx answer only)
 * the response transforms in array order. Each step goes into the call's trace as it happens.
 */
import { performance } from 'node:perf_hooks';
import type { Caller } from '../access/authenticator';
import type { CallKeyOf, RuntimeKeyOf } from '../access/runtime-keys';
import { missingKeyProblem } from '../access/authenticator';
import { systemCaller } from '../access/system-caller';
import { type BodyKind, bodyKindOf, ENCRYPTED_KEY, type ExpressionEngine, madeTokenKey, type TokenRecord } from '../expressions';
import { type BodyChunks, prefixOf } from '../server/body-chunks';
import { headersForLog } from '../server/log-headers';
import { ApiProblem } from '../server/problem';
import type { RequestContext } from '../server/route-types';
import { causeOf } from '../server/event-cause';
import type { EventCause } from '../events/event-outbox';
import { parseWith } from '../server/validation';
import { createTokenRequest } from '../vault/token-requests';
import type { TokenService } from '../vault/token-service';
import { afterRun, type AnyUnitRunner } from '../storage/unit';
import { outboundHeaders } from '../proxy/header-rules';
import { bodyText, type GatheredResponse, headerObject, type ProxyCore } from '../proxy/proxy-core';
import { maskPlaintext } from '../proxy/echoed-values';
import { BODY_KEPT, maskedOutboundView, outboundValuesMasked, type ProxyExchange, recordedEchoes, type TraceStep } from '../proxy/proxy-history';
import { encryptedRoot, type OpenEncryptedHeader } from '../proxy/encrypted-root';
import type { PreconfiguredCalls } from '../proxy/proxy-route';
import { requireProxyCaller } from '../proxy/proxy-rules';
import type { CodeLog, CodeRuntime, ProxyRequestArgs, ProxyResponseArgs } from '../code-runtime';
import { answerFromCode, type CodeResult, runCode, wireBody } from './code-transform';
import { settled } from './dependency-check';
import { callKeyUser, type ProxyTransform, type StoredProxy } from './proxy-model';
import type { ProxyStore } from './proxy-store';
import { appendHeader, appendJson, appendPathNames, appendText, maskByExpression, maskPans } from './response-transforms';

/** Inbound header names a pre-configured proxy passes on (vendor §2.11); others are dropped before anything runs. */
const VENDOR_HEADER_NAME = /^[A-Za-z0-9_-]+$/;

export interface ProxyCallDeps {
  proxies: ProxyStore;
  core: ProxyCore;
  tokens: TokenService<AnyUnitRunner>;
  expressions: ExpressionEngine;
  tenantId: string;
  codeRuntime: CodeRuntime;
  /** The key node-bt code calls this engine with, as the proxy's application (`bt`, `applicationOptions`). */
  runtimeKey: RuntimeKeyOf;
  /** The key node22 code gets for one call, holding exactly its `runtime.permissions` (`applicationOptions`). */
  callKey: CallKeyOf;
  /** The folder whose node_modules holds node22 code's `runtime.dependencies` (null: none named). */
  dependenciesDir: string | null;
  /** Opens a call's PFX-ENCRYPTED header (client encryption keys). */
  openEncrypted: OpenEncryptedHeader;
}

/** A body as transforms and templates see it: parsed JSON for a JSON body, else its text (§2.4). */
function parsedBody(body: Buffer | BodyChunks, kind: BodyKind): unknown {
  const text = bodyText(body);
  if (kind !== 'json') return text;
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const flatHeaders = (headers: Record<string, string>): string[] => Object.entries(headers).flat();

/** The request target with the proxy key taken out of its query, and a lone `/` after /proxy dropped (vendor §1.5). */
function targetWithoutKey(target: string, keyParam: string): string {
  const queryAt = target.indexOf('?');
  let path = queryAt === -1 ? target : target.slice(0, queryAt);
  if (path === '/proxy/') path = '/proxy';
  if (queryAt === -1) return path;
  const kept = target
    .slice(queryAt + 1)
    .split('&')
    .filter((pair) => {
      const name = pair.split('=', 1)[0];
      try {
        return decodeURIComponent(name.replace(/\+/g, ' ')).toLowerCase() !== keyParam;
      } catch {
        return true;
      }
    });
  return kept.length === 0 ? path : `${path}?${kept.join('&')}`;
}

type TransformCall = { kind: 'proxy-request'; args: ProxyRequestArgs } | { kind: 'proxy-response'; args: ProxyResponseArgs };

/** What a response transform did: the answer as it stands now (and the code's log lines), or an answer of the code's own. */
type ResponseStep = { response: GatheredResponse; logs?: CodeLog[] } | { answer: { status: number; headers: Record<string, string>; body: unknown }; logs?: CodeLog[] };

/** A body as a trace step keeps it; a function makes it, already masked, only when the step is settled. */
type TraceBody = Buffer | BodyChunks | null | (() => string | null);

/** The part of a body history keeps, as text. */
function keptText(body: TraceBody): string | null {
  const value = typeof body === 'function' ? body() : body;
  if (value === null) return null;
  if (typeof value === 'string') return value.slice(0, BODY_KEPT);
  return Buffer.from(prefixOf(Buffer.isBuffer(value) ? { chunks: [value], size: value.length } : value, BODY_KEPT)).toString('utf8');
}

/** `args.path` and `args.query` of a code transform: the path after /proxy, and the query with its `?` (§2.4). */
function pathAndQuery(target: string): { path: string; query: string } {
  const queryAt = target.indexOf('?');
  const path = (queryAt === -1 ? target : target.slice(0, queryAt)).slice('/proxy'.length);
  return { path, query: queryAt === -1 ? '' : target.slice(queryAt) };
}

export function preconfiguredCalls(deps: ProxyCallDeps): PreconfiguredCalls {
  const { proxies, core, tokens, expressions, tenantId } = deps;
  const prefix = core.prefix;
  const keyParam = `${prefix.toLowerCase()}-proxy-key`;
  const keyParamMark = `${keyParam}=`;

  function keyOf(ctx: RequestContext): string | undefined {
    const header = ctx.prefixed('PROXY-KEY');
    if (header !== undefined) return header;
    // The query is parsed only when it may name a key: the ephemeral proxy's hot path never parses it.
    if (!ctx.req.url?.toLowerCase().includes(keyParamMark)) return undefined;
    return ctx.query().get(keyParam) ?? undefined;
  }

  async function handle(ctx: RequestContext, exchange: ProxyExchange, key: string): Promise<'sent'> {
    const found = proxies.byInvocationKey(key);
    if (!found) throw new ApiProblem(400, `Invalid ${prefix}-PROXY-KEY`);
    const current = found.state === 'failed' ? await settled(proxies, found, deps.dependenciesDir) : found;
    if (!current.live) throw new ApiProblem(409, `Proxy ${current.id} has never been active: ${current.requested!.error_code}: ${current.requested!.error_message}`);
    const proxy = current.file ? current.file.atCall(ctx.log) : current;
    const trace: TraceStep[] = [];
    const caller = ctx.caller as Caller | undefined;
    const cause = causeOf(ctx);
    if (proxy.require_auth) {
      if (!caller) throw missingKeyProblem(`${prefix}-API-KEY`);
      requireProxyCaller(caller);
    }
    const encrypted = await encryptedRoot(ctx, exchange, prefix, deps.openEncrypted);

    const target = targetWithoutKey(ctx.req.url ?? '/proxy', keyParam);
    const destination = core.destinationOf(proxy.destination_url, target, 'destination_url');
    exchange.destination = destination.href;
    for (const warning of destination.warnings) exchange.warnings.push(warning.message);
    const headers = outboundHeaders(ctx.req.rawHeaders, prefix, VENDOR_HEADER_NAME);
    for (const warning of headers.warnings) exchange.warnings.push(warning.message);
    const received = await core.receive(ctx);

    /** What a trace may show of a text: every value the call detokenized, and any card number, masked. */
    const masked = (texts: string[]) => maskPlaintext(texts, recordedEchoes(exchange));
    // Each step is timed as it ends; what it changed is masked once the answer is out (run() records the exchange
    // then), so the masking costs the client nothing. It is recorded with the request, never completed when read.
    const settling: (() => void)[] = [];
    exchange.preconfigured = { id: proxy.id, name: proxy.name, trace, settle: () => settling.splice(0).forEach((settle) => settle()) };
    /** A step of the trace: its note, and what it changed, as far as history keeps a body. */
    let stepStart = performance.now();
    const step = (name: string, changed: { note?: string; headers?: string[]; body?: TraceBody; logs?: CodeLog[] } = {}) => {
      const now = performance.now();
      const entry: TraceStep = { step: name, ms: Math.round((now - stepStart) * 1000) / 1000 };
      if (changed.note !== undefined) entry.note = changed.note;
      trace.push(entry);
      stepStart = now;
      // A step that changed nothing a trace shows (the destination's, most often) has nothing to mask.
      if (!changed.headers && changed.body === undefined && !changed.logs?.length) return;
      settling.push(() => {
        if (changed.headers) {
          const logged = headersForLog(changed.headers, ctx.log.secrets);
          const values = masked(logged.map(([, v]) => v));
          entry.headers = logged.map(([header], i) => [header, values[i]]);
        }
        if (changed.body !== undefined) {
          const text = keptText(changed.body);
          // The detokenized body comes rendered with the tokens' masks: nothing in it is left to mask.
          entry.body = text === null || typeof changed.body === 'function' ? text : masked([text])[0];
        }
        if (changed.logs?.length) entry.logs = masked(changed.logs.map((line) => `${line.level}: ${line.message}`));
      });
    };

    // 2. Tokenize transforms, over the body as sent: their tokens are there for the body's expressions.
    const made = new Map<string, TokenRecord>();
    const tokenizing = proxy.request_transforms.filter((t) => t.type === 'tokenize');
    // Parsed only for tokenize transforms: a proxy without them costs no parse of the body.
    const requestScope = tokenizing.length > 0 ? { req: parsedBody(received.chunks, received.kind), ...(encrypted && { encrypted }) } : {};
    for (const transform of tokenizing) {
      const token = await tokenize(transform, requestScope, proxy, caller, cause);
      made.set(madeTokenKey(transform.options?.identifier ?? ''), token);
      step('tokenize', { note: `${transform.options?.identifier ?? '(no identifier)'}: token ${token.id}` });
    }

    /** The step whose body is the one that left (set once the request's pipeline is through). */
    let outboundStep: TraceStep | undefined;
    // 3. Detokenization, unless the proxy turns it off; without a caller only made tokens can be read.
    let body: Buffer | BodyChunks = received.chunks;
    if (!proxy.disable_detokenization) {
      const detokenized = core.detokenize(received, exchange, (compiled) => {
        const found = new Map(made);
        if (encrypted) found.set(ENCRYPTED_KEY, encrypted);
        if (compiled.tokenIds.length === 0) return found;
        if (!caller) throw new ApiProblem(401, `authentication required to detokenize: send ${prefix}-API-KEY`);
        return afterRun(core.tokensFor(caller, cause)(compiled), (records) => {
          for (const [id, record] of records) found.set(id, record);
          return found;
        });
      });
      // Awaited only when the vault reads the tokens later (a cold read over PostgreSQL), as for the ephemeral proxy.
      body = detokenized instanceof Promise ? await detokenized : detokenized;
      // Its body is the entry's outbound body unless code changes it after, and the history worker masks the card
      // numbers of that one: doing it here too would cost the serving thread a pass over the body for nothing.
      const view = () => (outboundStep?.step === 'detokenize' ? outboundValuesMasked(exchange) : maskedOutboundView(exchange));
      if (exchange.render) step('detokenize', { note: `${exchange.expressionCount} expression(s)`, body: view });
    }

    // 4. The code transform, over the detokenized body.
    let sent = headers;
    const code = proxy.request_transforms.find((t) => t.type === 'code');
    if (code) {
      const { result, logs } = await runTransformCode(code, { kind: 'proxy-request', args: {
        body: parsedBody(body, received.kind),
        headers: headerObject(headers.headers),
        method: ctx.method,
        ...pathAndQuery(target),
      } }, proxy);
      if ('answer' in result) {
        step('code', { note: `answered ${result.answer.status} without the destination`, logs });
        return answerFromCode(ctx.res, result.answer);
      }
      if (result.next.body !== undefined) body = wireBody(result.next.body);
      if (result.next.headers) {
        sent = outboundHeaders(flatHeaders(result.next.headers), prefix);
        exchange.preconfigured.headersFromCode = true;
      }
      step('code', { headers: result.next.headers && sent.headers, body: result.next.body === undefined ? undefined : body, logs });
    }
    // The body that left is kept once, as the entry's outbound body; the step that made it points there.
    const lastStep = trace.at(-1);
    if (lastStep && (exchange.render || code)) {
      outboundStep = lastStep;
      settling.push(() => {
        if (lastStep.body === undefined) return;
        exchange.preconfigured!.revealable = lastStep.step === 'detokenize';
        exchange.preconfigured!.outboundBody = lastStep.body;
        delete lastStep.body;
        lastStep.outbound_body = true;
      });
    }
    exchange.outbound = { method: ctx.method, headers: sent.headers, bytes: Buffer.isBuffer(body) ? body.length : body.size };

    // 5. Header expressions rooted at proxy, over the body as it leaves.
    const forwarded = core.evaluateHeaders(sent, core.proxyScope(ctx, body, proxy.configuration));
    if (sent.templated.length > 0) step('header_expressions', { note: sent.templated.map((at) => sent.headers[at]).join(', ') });

    // 6. The destination; 7. the response transforms, on a 2xx answer only.
    const request = { origin: destination.origin, path: destination.path, method: ctx.method, headers: forwarded, body };
    if (proxy.response_transforms.length === 0) {
      return core.relay(ctx, exchange, request, () => step('destination', { note: `${exchange.response!.status}` }));
    }
    let response = await core.gather(ctx, exchange, request);
    step('destination', { note: `${response.status}` });
    if (response.status >= 200 && response.status < 300) {
      const identifiers = new Map<string, TokenRecord>([...made].map(([k, v]) => [k.slice(madeTokenKey('').length), v]));
      for (const transform of proxy.response_transforms) {
        const done = await responseTransform(transform, response, proxy, caller, cause, identifiers);
        if ('answer' in done) {
          step(transform.type, { note: `answered ${done.answer.status}`, logs: done.logs });
          return answerFromCode(ctx.res, done.answer);
        }
        const next = done.response;
        const note = next.status === response.status ? undefined : `status ${next.status}`;
        const changed = { headers: next.headers !== response.headers ? next.headers : undefined, body: next.body !== response.body ? next.body : undefined };
        response = next;
        step(transform.type, { note, ...changed, logs: done.logs });
      }
    }
    return core.answer(ctx, response);
  }

  /** A token made from `transform.options.token` rendered over `scope`, as POST /tokens makes one; returned without its data. */
  async function tokenize(transform: ProxyTransform, scope: Record<string, unknown>, proxy: StoredProxy, caller: Caller | undefined, cause: EventCause): Promise<TokenRecord> {
    const rendered = expressions.renderTemplate(transform.options!.token, scope) as Record<string, unknown>;
    // A single PFX-ENCRYPTED request is merged into the token (vendor-surfaces.md §2.8): its data replaces the template's.
    const single = scope.encrypted as { type?: unknown; data?: unknown } | undefined;
    if (typeof single?.type === 'string' && 'data' in single) rendered.data = single.data;
    const input = parseWith(createTokenRequest, rendered);
    const writer = systemCaller(tenantId, caller ? { id: caller.application.id, name: caller.application.name } : { id: proxy.id, name: proxy.name });
    const { data: _data, ...token } = await tokens.create(input, { caller: writer, cause });
    return token as unknown as TokenRecord;
  }

  async function runTransformCode(transform: ProxyTransform, call: TransformCall, proxy: StoredProxy): Promise<{ result: CodeResult; logs: CodeLog[] }> {
    const runtime = transform.options?.runtime ?? { image: 'node-bt' };
    const permissions = runtime.image === 'node22' ? (runtime.permissions ?? []) : [];
    // node22 code's key lives only for this call: revoked however the call ends (an answer, a failure, a timeout).
    const callKey = permissions.length > 0 ? await deps.callKey(callKeyUser(proxy, transform), permissions) : undefined;
    const applicationKey = runtime.image === 'node-bt' && proxy.application_id !== null ? await applicationKeyOf(proxy, proxy.application_id) : callKey?.key;
    const dependenciesDir = deps.dependenciesDir ?? undefined;
    try {
      return await runCode(deps.codeRuntime, { ...call, code: transform.code!, runtime, configuration: proxy.configuration, applicationKey, dependenciesDir });
    } finally {
      await callKey?.revoke();
    }
  }

  /** The runtime key of the proxy's application; an application deleted since the proxy was saved is the proxy's to fix. */
  async function applicationKeyOf(proxy: StoredProxy, applicationId: string): Promise<string> {
    const key = await deps.runtimeKey(applicationId, { id: proxy.id, name: proxy.name });
    if (key === null) throw new ApiProblem(409, `The proxy's application ${applicationId} no longer exists: give the proxy another with PUT or PATCH /proxies/${proxy.id}`);
    return key;
  }

  /** One response transform over the answer as it stands; a code transform may answer instead. */
  async function responseTransform(
    transform: ProxyTransform,
    response: GatheredResponse,
    proxy: StoredProxy,
    caller: Caller | undefined,
    cause: EventCause,
    identifiers: Map<string, TokenRecord>,
  ): Promise<ResponseStep> {
    const kind = bodyKindOf(contentTypeOf(response.headers));
    const res = () => parsedBody(response.body, kind);
    const render = (value: string) => expressions.renderTemplate(value, { res: res(), transform_identifier: Object.fromEntries(identifiers), proxy: { config: proxy.configuration } });
    const { options = {} } = transform;
    switch (transform.type) {
      case 'mask': {
        const text = response.body.toString('utf8');
        const masked = transform.matcher === 'regex' ? maskByExpression(text, transform.expression!, transform.replacement!) : maskPans(text, transform.replacement!);
        return { response: masked === text ? response : { ...response, body: Buffer.from(masked) } };
      }
      case 'append_json':
        return { response: { ...response, body: appendJson(response.body, appendPathNames(options.location!)!, render(options.value!)) } };
      case 'append_text':
        return { response: { ...response, body: appendText(response.body, render(options.value!)) } };
      case 'append_header':
        return { response: { ...response, headers: appendHeader(response.headers, options.location!, render(options.value!)) } };
      case 'tokenize': {
        const token = await tokenize(transform, { res: res(), transform_identifier: Object.fromEntries(identifiers) }, proxy, caller, cause);
        identifiers.set(options.identifier ?? '', token);
        return { response };
      }
      case 'code': {
        const args = { body: res(), headers: headerObject(response.headers), statusCode: response.status };
        const { result, logs } = await runTransformCode(transform, { kind: 'proxy-response', args }, proxy);
        if ('answer' in result) return { answer: result.answer, logs };
        const { statusCode, body, headers } = result.next;
        return {
          response: {
            status: statusCode ?? response.status,
            body: body === undefined ? response.body : wireBody(body),
            headers: headers ? flatHeaders(headers) : response.headers,
          },
          logs,
        };
      }
    }
  }

  return { keyOf, handle };
}

const contentTypeOf = (headers: readonly string[]): string | undefined => {
  for (let i = 0; i < headers.length; i += 2) if (headers[i].toLowerCase() === 'content-type') return headers[i + 1];
  return undefined;
};
