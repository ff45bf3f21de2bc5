/**
 * Invoking a reactor (docs/api.md, Reactors; vendor-surfaces.md §3.4–3.6): the args' expressions detokenized under the
 * caller's access, the code run by the engine's code runtime, and what it returned made into the answer (`raw`, the
 * `tokens` its `tokenize` made; node22's `res`), or its failure in the vendor's reactor-error form. Each step goes into
 * the call's trace for History, with every detokenized value masked.
 */
import { performance } from 'node:perf_hooks';
import type { Caller } from '../access/authenticator';
import { REACTOR_INVOKE } from '../access/permissions';
import type { CallKeyUser } from '../access/runtime-keys';
import { systemCaller } from '../access/system-caller';
import { type CodeLog, failureProblem, type ReactorInvocation } from '../code-runtime';
import type { EventCause, EventOutbox } from '../events/event-outbox';
import type { TokenRecord } from '../expressions';
import type { ProxyCallDeps } from '../proxies/proxy-calls';
import type { DetokenizingRoute } from '../proxy/proxy-check';
import { EchoedValues, maskPlaintext } from '../proxy/echoed-values';
import { BODY_KEPT, type TraceStep } from '../proxy/proxy-history';
import type { ResolvedSecrets } from '../server/log-headers';
import { ApiProblem } from '../server/problem';
import { parseWith } from '../server/validation';
import { createTokenRequest } from '../vault/token-requests';
import { runtimeOf, type StoredReactor } from './reactor-model';
import type { ReactAnswer } from './reactor-results';
import type { ReactorStore } from './reactor-store';

/** The vendor detokenizes at most this many expressions in one react's args (§3.7). */
export const MAX_REACTOR_EXPRESSIONS = 100;
export interface ReactorCallDeps extends Pick<ProxyCallDeps, 'tokens' | 'expressions' | 'tenantId' | 'codeRuntime' | 'runtimeKey' | 'callKey' | 'dependenciesDir'> {
  reactors: ReactorStore;
  /** A synchronous run's limit (the vendor's 30 s); node22's own `timeout` applies below it. */
  syncLimitMs: number;
  /** An asynchronous node-bt run's limit (the vendor's 5 minutes); node22's is its `timeout`, up to 900 s. */
  asyncLimitMs: number;
  /** Where a run raises reactor.invoked, then reactor.completed or reactor.failed. */
  outbox: EventOutbox;
}

/** What a react records in History (details.reactor): which reactor, and its trace, masked. */
export interface ReactRecord {
  id: string;
  name: string;
  /** Set for react-async (and a legacy `callback_url`): the request id its result is polled with. */
  async_request_id?: string;
  trace: TraceStep[];
}

/** node22 code's key user: one per reactor. */
export const reactorKeyUser = (reactor: StoredReactor): CallKeyUser => ({ id: reactor.id, name: reactor.name, place: 'code', kind: 'reactor' });

/** react, react-async and results take a private application holding reactor:invoke (or token:use). */
export function requireInvoker({ application, policy }: Caller): void {
  if (application.type !== 'private') throw new ApiProblem(403, `Reactors take a private application key; this key belongs to a ${application.type} application`);
  if (!policy.has(REACTOR_INVOKE)) throw new ApiProblem(403, 'The application lacks reactor:invoke (or token:use)');
}

/** react and react-async as the workbench's checks see a request before it is sent: the refusals prepare makes. */
export const REACT_ROUTE: DetokenizingRoute = {
  name: 'the reactor',
  matches: (path) => /^\/reactors\/[^/?]+\/react(-async)?\/?(\?|$)/.test(path),
  requireCaller: requireInvoker,
  callerAdvice: 'React as a private application that has reactor:invoke (or token:use).',
  permission: REACTOR_INVOKE,
  receiver: 'the code',
  maxExpressions: MAX_REACTOR_EXPRESSIONS,
  json: true,
};

/** A react checked and detokenized, ready to run: what the client is told now, before any code runs (react-async). */
export interface PreparedReact {
  reactor: StoredReactor;
  invocation: ReactorInvocation;
  record: ReactRecord;
  /** What a file reactor's secret references resolved to: written back as references wherever the call is kept. */
  secrets: ResolvedSecrets | null;
  /** Runs the code and makes its answer: a failure of the call (the code's, a 4xx) is its answer; only a fault of the engine's own throws. */
  run(options: { async: boolean }): Promise<ReactAnswer>;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const problemAnswer = (problem: ApiProblem): ReactAnswer => ({ status: problem.status, headers: { 'content-type': 'application/problem+json' }, body: problem.toBody() });

/** What a failed answer says went wrong: its problem's detail and error messages, else its status. */
function errorOf({ status, body }: ReactAnswer): string {
  const problem = typeof body === 'object' && body !== null ? (body as { detail?: unknown; errors?: unknown }) : {};
  const messages: unknown[] = typeof problem.errors === 'object' && problem.errors !== null ? Object.values(problem.errors as Record<string, unknown>).flat() : [];
  const said = [problem.detail, ...messages].filter((part): part is string => typeof part === 'string');
  return said.length > 0 ? said.join(': ') : `The reactor answered ${status}`;
}

/** The text of a value as a trace keeps it: JSON, as far as History keeps a body. */
const traceText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).slice(0, BODY_KEPT);

export function reactorCalls(deps: ReactorCallDeps) {
  const { reactors, tokens, expressions, tenantId } = deps;

  /** The reactor as it runs now (see ReactorStore.settled); 409 for one that has never been live. */
  async function current(id: string): Promise<StoredReactor> {
    const reactor = await reactors.settled(id, deps.dependenciesDir);
    if (!reactor.live) throw new ApiProblem(409, `Reactor ${reactor.id} is not active: ${reactor.requested!.error_code}: ${reactor.requested!.error_message}`);
    return reactor;
  }

  /** Checks the caller and the body, and detokenizes the args (§3.4): every 4xx a react can have before its code runs. */
  async function prepare(caller: Caller, reactorId: string, body: unknown, cause: EventCause): Promise<PreparedReact> {
    requireInvoker(caller);
    const reactor = await current(reactorId);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiProblem(400, 'The body of a react is a JSON object: { "args": … }');
    // A file reactor's secret references are put in now: a secret missing is this react's 422, before any code runs.
    const { configuration, secrets } = reactor.file?.atCall() ?? { configuration: reactor.configuration, secrets: null };
    const trace: TraceStep[] = [];
    let stepStart = performance.now();
    const step = (name: string, fields: Omit<TraceStep, 'step' | 'ms'> = {}) => {
      const now = performance.now();
      trace.push({ step: name, ms: Math.round((now - stepStart) * 1000) / 1000, ...fields });
      stepStart = now;
    };
    const { tokenIds, expressionCount } = expressions.collectJsonTokenIds(body, MAX_REACTOR_EXPRESSIONS);
    let invocation = body as ReactorInvocation;
    let echoes: EchoedValues | undefined;
    if (expressionCount > 0) {
      const records: Map<string, TokenRecord> = await tokens.tokensForExpressions(tokenIds, caller, REACTOR_INVOKE, undefined, cause);
      invocation = expressions.detokenizeJson(body, records) as ReactorInvocation;
      echoes = new EchoedValues([...records.values()].map((record) => record.data));
    }
    /** What a trace may show of a text: every detokenized value, and any card number, masked; a secret as its reference. */
    const masked = (text: string) => maskPlaintext([secrets ? secrets.asReferences(text) : text], echoes)[0];
    step('args', { note: `${expressionCount} expression(s)`, body: masked(traceText(invocation.args ?? null)) });
    const record: ReactRecord = { id: reactor.id, name: reactor.name, trace };

    async function run({ async }: { async: boolean }): Promise<ReactAnswer> {
      const ran = raiseRun(reactor, { id: record.async_request_id ?? cause.traceId, invocation_type: async ? 'async' : 'sync' }, cause);
      let answer: ReactAnswer;
      try {
        answer = await execute({ ...reactor, configuration }, invocation, caller, async, cause, (logs, note) => step('code', { note, ...(logs.length > 0 && { logs: logs.map((l) => masked(`${l.level}: ${l.message}`)) }) }), (note) => step('tokenize', { note }));
      } catch (error) {
        if (!(error instanceof ApiProblem)) {
          // A fault of the engine's own: the caller answers it; the trace says the run ended there.
          step('result', { note: '500: the engine failed to run the reactor' });
          throw error;
        }
        answer = problemAnswer(error);
      }
      step('result', { note: String(answer.status), body: masked(traceText(answer.body)) });
      ran(answer, (text) => masked(text));
      return answer;
    }
    return { reactor, invocation, record, secrets, run };
  }

  /** The code's run and what it returned, as the answer (§3.4); an ApiProblem for what fails outside the code. */
  async function execute(
    reactor: StoredReactor,
    invocation: ReactorInvocation,
    caller: Caller,
    async: boolean,
    cause: EventCause,
    ran: (logs: CodeLog[], note: string) => void,
    tokenized: (note: string) => void,
  ): Promise<ReactAnswer> {
    const runtime = runtimeOf(reactor);
    const permissions = runtime.image === 'node22' ? (runtime.permissions ?? []) : [];
    const callKey = permissions.length > 0 ? await deps.callKey(reactorKeyUser(reactor), permissions) : undefined;
    const applicationKey = runtime.image === 'node-bt' && reactor.application_id !== null ? await applicationKeyOf(reactor, reactor.application_id) : callKey?.key;
    const node22Ms = (runtime.timeout ?? 10) * 1000;
    const timeoutMs = runtime.image === 'node22' ? (async ? node22Ms : Math.min(node22Ms, deps.syncLimitMs)) : async ? deps.asyncLimitMs : deps.syncLimitMs;
    let outcome;
    try {
      outcome = await deps.codeRuntime.run({
        kind: 'reactor',
        args: invocation,
        code: reactor.code,
        runtime,
        configuration: reactor.configuration,
        applicationKey,
        dependenciesDir: deps.dependenciesDir ?? undefined,
        timeoutMs,
      });
    } finally {
      await callKey?.revoke();
    }
    ran(outcome.logs, outcome.ok ? runtime.image : `${runtime.image}: ${outcome.error.kind}`);
    if (!outcome.ok) {
      const { error } = outcome;
      if (error.kind === 'custom-response') return { status: error.status, headers: error.headers, body: error.body };
      return { status: error.status, headers: { 'content-type': 'application/problem+json' }, body: failureProblem(error) };
    }
    const { value } = outcome;
    if (!('image' in value)) throw new Error('A reactor call came back with a transform\'s value');
    if (value.image === 'node22') return { status: value.statusCode, headers: value.headers, body: value.body };
    const { image: _image, tokenize, ...returned } = value;
    if (tokenize === undefined) return { status: 200, headers: JSON_HEADERS, body: returned };
    const made = await tokenizeFor(caller, tokenize, cause);
    tokenized(`${made.count} token(s)`);
    return { status: 200, headers: JSON_HEADERS, body: { ...returned, tokens: made.tokens } };
  }

  /** What the code's `tokenize` asks for, as POST /tokenize makes it, by the invoking application (no token:create needed). */
  async function tokenizeFor(caller: Caller, tokenize: unknown, cause: EventCause): Promise<{ tokens: unknown; count: number }> {
    let count = 0;
    const writer = systemCaller(tenantId, { id: caller.application.id, name: caller.application.name });
    const made = await tokens.tokenize(tokenize, { caller: writer, cause }, (value, path) => {
      count++;
      return parseWith(createTokenRequest, value, path);
    });
    return { tokens: made, count };
  }

  /**
   * reactor.invoked now; the function it answers raises reactor.completed (a 2xx or 3xx answer) or reactor.failed
   * (the answer's problem detail as the error, masked as the trace masks it), with the run's time.
   */
  function raiseRun(reactor: StoredReactor, request: { id: string | null; invocation_type: 'sync' | 'async' }, cause: EventCause) {
    const started = performance.now();
    const named = { reactor: { id: reactor.id, name: reactor.name }, request };
    deps.outbox.raise({ type: 'reactor.invoked', data: () => named, ...cause });
    return (answer: ReactAnswer, masked: (text: string) => string) => {
      const elapsed_ms = Math.round(performance.now() - started);
      if (answer.status < 400) deps.outbox.raise({ type: 'reactor.completed', data: () => ({ ...named, elapsed_ms }), ...cause });
      else deps.outbox.raise({ type: 'reactor.failed', data: () => ({ ...named, elapsed_ms, error: masked(errorOf(answer)) }), ...cause });
    };
  }

  /** The runtime key of the reactor's application; one deleted since the reactor was saved is the reactor's to fix. */
  async function applicationKeyOf(reactor: StoredReactor, applicationId: string): Promise<string> {
    const key = await deps.runtimeKey(applicationId, { id: reactor.id, name: reactor.name });
    if (key === null) throw new ApiProblem(409, `The reactor's application ${applicationId} no longer exists: give the reactor another with PUT or PATCH /reactors/${reactor.id}`);
    return key;
  }

  return { prepare };
}

export type ReactorCalls = ReturnType<typeof reactorCalls>;
