/**
 * The workbench's checks of a composed request before it is sent, to the proxy or to another route that detokenizes
 * its body (a react): what the route would refuse, and where the hosted service would behave differently. Each check
 * is the route's own (proxy-rules, destination-url, header-rules, the JSON body parser, the expression engine's
 * placement and parser, the vault's lookup and the access policy), applied to the request as the Composer would send
 * it, so the editor's flags and the route's answers cannot drift apart.
 */
import type { RequestToCheck, ExpressionPreview, FlagPlace, RequestCheck, RequestFlag } from '../../../shared/workbench/composer-contract';
import type { Caller } from '../access/authenticator';
import type { AccessDecision, Permission } from '../access/permissions';
import {
  type BodyKind,
  bodyKindOf,
  ExpressionBudget,
  ExpressionError,
  ExpressionOverBudget,
  type ExpressionEngine,
  type InspectedExpression,
  type TokenRecord,
  UnclosedExpression,
} from '../expressions';
import { parseJsonBody } from '../server/body';
import { ApiProblem } from '../server/problem';
import type { StoredToken } from '../vault/token-store';
import { afterRun, type Answer, answerOf, type AnyUnitRunner, bothOf, type UnitRunner } from '../storage/unit';
import { missingTokensProblem, REDACTED, type TokenService } from '../vault/token-service';
import type { CompatibilityWarning, OutsideBody } from './compatibility';
import { CHECK_FILTERS, emptyFlag } from './empty-flag';
import { PROXY_MOUNT, resolveDestination } from './destination-url';
import { outboundHeaders } from './header-rules';
import { checkExpressionCount, headerExpressionProblem, hostedLimitWarning, requireProxyCaller } from './proxy-rules';

/** A route that detokenizes a request's body, as its checks tell it apart. */
export interface DetokenizingRoute {
  /** Its name where a flag quotes its answer: `400 from the proxy: …`. */
  name: string;
  matches(path: string): boolean;
  /** Its refusal of a caller whatever the body holds (a public application's 403), and what to do about it. */
  requireCaller(caller: Caller): void;
  callerAdvice: string;
  /** What it asks an application's rules for on each token's containers. */
  permission: Permission;
  /** Who gets what an expression writes: `the destination`. */
  receiver: string;
  /** Its own limit of expressions; none: the engine's (`--max-expressions`, Settings), beside the hosted service's. */
  maxExpressions?: number;
  /** The body is JSON, parsed before its strings' expressions are detokenized; otherwise its Content-Type says. */
  json: boolean;
}

export interface RequestCheckSources<R extends AnyUnitRunner = UnitRunner> {
  tokens: TokenService<R>;
  expressions: ExpressionEngine;
  headerPrefix: string;
  /** The application as the route would see it calling; undefined once it is gone. */
  callerFor(applicationId: string): Caller | undefined;
  /** The routes besides the proxy whose requests are checked. */
  routes: readonly DetokenizingRoute[];
}

export interface PreviewQuery {
  application_id: string | null;
  content_type: string | null;
  body: string;
  at: number;
}

/** Over SQLite's runner a check answers at once; over PostgreSQL's once the vault's tokens are read. */
export interface RequestChecks<R extends AnyUnitRunner = UnitRunner> {
  check(request: RequestToCheck): Answer<R, RequestCheck>;
  /** The expression at `at`: its token and what it would write, from the token's masked data. */
  preview(query: PreviewQuery): Answer<R, ExpressionPreview>;
}

/** Who a check is made for: an application of this engine (or none chosen), or a remote target, whose vault is unknown. */
type Scope = { vault: true; caller: Caller | null } | { vault: false };

type CompiledAt = Extract<InspectedExpression, { expression: object }>;

const REQUEST: FlagPlace = { part: 'request' };
const bodyAt = ({ start, end }: InspectedExpression): FlagPlace => ({ part: 'body', from: start, to: end });

const isProxyPath = (path: string) => path === PROXY_MOUNT || path.startsWith(`${PROXY_MOUNT}/`) || path.startsWith(`${PROXY_MOUNT}?`);

const headerValue = (headers: readonly (readonly [string, string])[], name: string) =>
  headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const PROXY_ROUTE: DetokenizingRoute = {
  name: 'the proxy',
  matches: isProxyPath,
  requireCaller: requireProxyCaller,
  callerAdvice: 'Send as a private application that has token:use.',
  permission: 'token:use',
  receiver: 'the destination',
  json: false,
};

/** The answer `route` would give, as a flag quotes it. */
const quoteOf = (route: DetokenizingRoute) => (problem: ApiProblem) => `${problem.status} from ${route.name}: ${problem.detail ?? problem.message}`;

/** Where JSON.parse stopped in `text` (its message says `position 12` where V8 knows), or the end of the text. */
function parseStop(text: string): FlagPlace {
  let at = text.length;
  try {
    JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message);
    if (position) at = Math.min(Number(position[1]), text.length);
  }
  return { part: 'body', from: Math.max(0, Math.min(at, text.length - 1)), to: Math.min(at + 1, text.length) };
}

/** Runs a check of the proxy's; the problem it would answer with is handed to `refused` instead of thrown. */
function refusal<T>(check: () => T, refused: (problem: ApiProblem) => void): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    refused(error);
    return undefined;
  }
}

function describeOutside(outside: OutsideBody): string {
  if (outside.part === 'header') return `header ${outside.name}`;
  if (outside.part === 'query') return `query parameter ${outside.name}`;
  return 'URL path';
}

/** What to do about an expression that does not compile or evaluate, by what is wrong with it. */
function expressionAdvice(error: ExpressionError): string {
  if (error instanceof UnclosedExpression) return 'Close it with }}.';
  if (error instanceof ExpressionOverBudget) return 'Make it do less: a shorter pad, fewer filters, a plainer JSONPath.';
  if (/token id/.test(error.reason)) return 'Start it with a token id: {{ <id> | filter }}. Ctrl+Space lists tokens.';
  if (/filter/i.test(error.reason)) return 'Use a filter of the expression language: Ctrl+Space after a | lists them.';
  return CHECK_FILTERS;
}

/** How an application's rules decide `permission` on a token, in words. */
function decidedBy(decision: AccessDecision, caller: Caller, permission: Permission): string {
  const name = caller.application.name;
  if (decision.uncovered !== null) {
    const granting = caller.policy.containerPrefixes(permission);
    const others = granting.length === 0 ? `none of its rules grants ${permission}` : `it has ${permission} on ${granting.join(', ')} only`;
    return `no rule of “${name}” grants ${permission} on ${decision.uncovered}, the token's container (${others})`;
  }
  const rule = decision.rule!;
  const by = caller.policy.isBarePermissions(rule)
    ? `its permissions (${permission} reveals)`
    : `its rule “${rule.description}” (priority ${rule.priority}, container ${rule.container}, ${rule.transform})`;
  return `“${name}” may use it ${decision.transform === 'reveal' ? 'revealed' : `${decision.transform}ed`}, by ${by}`;
}

const SEVERITY_ORDER: Record<RequestFlag['severity'], number> = { error: 0, warning: 1, info: 2 };
/** The request's parts in the order a reader meets them: who sends it, the URL, the headers, the body. */
const PART_ORDER: Record<FlagPlace['part'], number> = { request: 0, path: 1, query: 2, header: 3, body: 4 };
const byPlace = (a: FlagPlace, b: FlagPlace) => PART_ORDER[a.part] - PART_ORDER[b.part] || (a.part === 'body' && b.part === 'body' ? a.from - b.from : 0);

/** The flags of one check. */
class Flags {
  private readonly found: RequestFlag[] = [];

  add(severity: RequestFlag['severity'], kind: RequestFlag['kind'], at: FlagPlace, message: string, advice: string | null): void {
    this.found.push({ severity, kind, at, message, advice });
  }

  /** Errors first, then warnings, then notes, each in the order of the request: the first thing to fix comes first. */
  get list(): RequestFlag[] {
    return this.found.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || byPlace(a.at, b.at));
  }
}

export function createRequestChecks<R extends AnyUnitRunner>(sources: RequestCheckSources<R>): RequestChecks<R> {
  const { expressions, headerPrefix } = sources;
  // Read as code for either runner reads it (`T | Promise<T>`); the answers are typed for `R` where they leave.
  const tokens: TokenService<AnyUnitRunner> = sources.tokens;
  const routes = [PROXY_ROUTE, ...sources.routes];

  function scopeOf(applicationId: string | null, remote: boolean): Scope {
    if (remote) return { vault: false };
    if (applicationId === null) return { vault: true, caller: null };
    const caller = sources.callerFor(applicationId);
    if (!caller) throw new ApiProblem(404, `Application ${applicationId} not found`);
    return { vault: true, caller };
  }

  function check(request: RequestToCheck): Answer<R, RequestCheck> {
    const scope = scopeOf(request.application_id, request.target_id !== null);
    const flags = new Flags();
    // Only a detokenizing route reads expressions; the vault API takes bodies as they are.
    const route = routes.find((r) => r.matches(request.path));
    if (!route) return answerOf<R, undefined, RequestCheck>(undefined, () => ({ flags: [], expressions: [], vault_checked: scope.vault }));
    const answer = quoteOf(route);
    const caller = scope.vault ? scope.caller : null;

    const callerAllowed =
      caller === null ||
      refusal(
        () => (route.requireCaller(caller), true),
        (problem) => flags.add('error', 'refused', REQUEST, answer(problem), route.callerAdvice),
      ) === true;
    const warnings = route === PROXY_ROUTE ? checkProxyRequest(request, flags, answer) : [];
    if (route.json) {
      const body = request.body ?? '';
      refusal(
        () => parseJsonBody({ chunks: [Buffer.from(body, 'utf8')], size: Buffer.byteLength(body, 'utf8') }),
        (problem) => flags.add('error', 'refused', parseStop(body), answer(problem), 'Fix the JSON where it is marked: quoted keys and strings, no comma before a closing bracket.'),
      );
    }

    const kind = route.json ? 'json' : bodyKindOf(headerValue(request.headers, 'content-type'));
    const inspected = request.body === null ? [] : inspect(request.body, kind, flags, answer);
    const compiled = inspected.filter((e): e is CompiledAt => e.expression !== undefined);

    const overLimit = (problem: ApiProblem) => {
      const first = inspected[route.maxExpressions ?? expressions.expressionLimit];
      const advice = route.maxExpressions === undefined ? 'Send fewer expressions per request, or raise the expression limit in Settings (a --max-expressions given at start wins).' : 'Send fewer expressions per request.';
      flags.add('error', 'expression_limit', first ? bodyAt(first) : REQUEST, answer(problem), advice);
    };
    if (route.maxExpressions !== undefined) {
      // The route's own limit, the hosted service's too: the same wherever the request goes.
      refusal(() => expressions.checkExpressionCount(inspected.length, route.maxExpressions), overLimit);
    } else if (scope.vault) {
      const hosted = refusal(() => checkExpressionCount(inspected.length, expressions), overLimit);
      if (hosted) warnings.push(hosted);
    } else {
      const hosted = hostedLimitWarning(inspected.length);
      if (hosted) flags.add('warning', 'expression_limit', REQUEST, sentence(hosted.message), 'Send fewer expressions per request.');
    }

    for (const warning of warnings) {
      for (const outside of warning.outside ?? []) {
        flags.add('warning', 'outside_body', outside, `The ${describeOutside(outside)} holds an expression, which is sent as written: only the body is detokenized`, 'Move the value into the body.');
      }
      // The rest describe this engine against the hosted service; a remote target is one or the other already.
      if (!warning.outside && scope.vault) flags.add('info', 'compatibility', REQUEST, sentence(warning.message), 'Tokenbench allows it; the hosted service would not.');
    }

    const checked = scope.vault && compiled.length > 0 ? checkTokens(compiled, callerAllowed ? caller : null, flags, route) : undefined;
    return answerOf<R, void, RequestCheck>(checked, () => ({
      flags: flags.list,
      expressions: compiled.map((e) => ({ from: e.start, to: e.end, token_id: e.expression.ref.id })),
      vault_checked: scope.vault,
    }));
  }

  /** The proxy's own checks of where the request goes and of its headers; what they only warn of is returned. */
  function checkProxyRequest(request: RequestToCheck, flags: Flags, answer: (problem: ApiProblem) => string): CompatibilityWarning[] {
    const warnings: CompatibilityWarning[] = [];
    const destination = refusal(
      () => resolveDestination(headerValue(request.headers, `${headerPrefix}-PROXY-URL`), request.path, headerPrefix),
      (problem) => flags.add('error', 'refused', REQUEST, answer(problem), 'Fix the destination URL.'),
    );
    if (destination) warnings.push(...destination.warnings);
    const outbound = refusal(
      () => outboundHeaders(request.headers.flat(), headerPrefix),
      (problem) => flags.add('error', 'refused', REQUEST, answer(problem), 'Remove the control character from the header.'),
    );
    if (outbound) warnings.push(...outbound.warnings);
    for (const at of outbound?.templated ?? []) {
      const [name, value] = [outbound!.headers[at], outbound!.headers[at + 1]];
      // The proxy parses these as the request leaves; what does not parse is its 400, which names the header.
      refusal(
        () => expressions.headerTemplate(value),
        (problem) => flags.add('error', 'broken_expression', { part: 'header', name }, answer(headerExpressionProblem(name, problem as ExpressionError)), expressionAdvice(problem as ExpressionError)),
      );
    }
    return warnings;
  }

  /** The body's expressions, each that does not compile flagged where it is. */
  function inspect(body: string, kind: BodyKind, flags: Flags, answer: (problem: ApiProblem) => string): InspectedExpression[] {
    try {
      const inspected = expressions.inspectBody(body, kind);
      for (const e of inspected) if (e.error) flags.add('error', 'broken_expression', bodyAt(e), answer(e.error), expressionAdvice(e.error));
      return inspected;
    } catch (error) {
      // More unclosed expressions than are worth placing again: the last one found stands for the rest.
      if (!(error instanceof UnclosedExpression)) throw error;
      flags.add('error', 'broken_expression', { part: 'body', from: error.start, to: error.start + 2 }, answer(error), expressionAdvice(error));
      return [];
    }
  }

  /**
   * The vault's part, as the route does it: the ids looked up at once (an unknown or expired one is its 400), the
   * caller's rules asked for the route's permission on each token's containers (its 403), then every expression
   * evaluated over the record the route would hand it, within one budget, and the results dropped. `caller` null: no
   * application to ask about (none chosen, or one the route refuses whatever the tokens).
   */
  function checkTokens(all: readonly CompiledAt[], caller: Caller | null, flags: Flags, route: DetokenizingRoute): void | Promise<void> {
    const { permission } = route;
    // What the call itself brings (a tokenize transform's token, the PFX-ENCRYPTED requests) is no vault token to check.
    const compiled = all.filter((e) => !e.expression.ref.made);
    const ids = [...new Set(compiled.map((e) => e.expression.ref.id))];
    return afterRun(bothOf(tokens.store.getMany(ids), tokens.intentTokensByKey(ids)), ([found, intents]) => {
      const stored = new Map<string, StoredToken>();
      for (const token of found) if (token) stored.set(token.id, token);
      for (const [key, intent] of intents) stored.set(key, intent);
      const decisions = new Map<string, AccessDecision>();
      if (caller) for (const [id, token] of stored) decisions.set(id, caller.policy.decide(permission, token.containers));
      const usable = [...decisions].filter(([, decision]) => decision.transform !== null).map(([id]) => id);
      const records = caller && usable.length > 0 ? tokens.tokensForExpressions(usable, caller, permission) : null;
      return afterRun(records, (read) => flagTokens(compiled, stored, decisions, read, caller, flags, route));
    }) as void | Promise<void>;
  }

  /** checkTokens' flags, once the tokens, the caller's decisions on them and the records the route would use are read. */
  function flagTokens(
    compiled: readonly CompiledAt[],
    stored: ReadonlyMap<string, StoredToken>,
    decisions: ReadonlyMap<string, AccessDecision>,
    records: ReadonlyMap<string, TokenRecord> | null,
    caller: Caller | null,
    flags: Flags,
    route: DetokenizingRoute,
  ): void {
    const { permission } = route;
    const answer = quoteOf(route);
    const write = expressions.expressionWriter(new ExpressionBudget());

    for (const e of compiled) {
      const id = e.expression.ref.id;
      const token = stored.get(id);
      if (!token) {
        flags.add('error', 'unknown_token', bodyAt(e), answer(missingTokensProblem([id])), 'Use a live token (Ctrl+Space lists them): this id names none, or one that has expired.');
        continue;
      }
      const decision = decisions.get(id);
      if (!caller || !decision) continue;
      if (decision.transform === null) {
        refusal(
          () => caller.policy.require(permission, token.containers),
          (problem) =>
            flags.add(
              'error',
              'forbidden_token',
              bodyAt(e),
              `${answer(problem)}: ${decidedBy(decision, caller, permission)}`,
              `Give “${caller.application.name}” an access rule granting ${permission} on ${decision.uncovered}, or send as an application that has one.`,
            ),
        );
        continue;
      }
      if (decision.transform !== 'reveal') {
        flags.add(
          'info',
          'masked_use',
          bodyAt(e),
          `${sentence(decidedBy(decision, caller, permission))}: ${route.receiver} receives the ${decision.transform === 'mask' ? 'masked value' : 'value redacted'}, not the data`,
          'To send the data itself, the deciding rule must reveal.',
        );
      }
      const written = refusal(
        () => write(e, records!.get(id)!),
        (problem) => flags.add('error', 'evaluation', bodyAt(e), answer(problem), problem instanceof ExpressionError ? expressionAdvice(problem) : null),
      );
      // A redacting rule empties every value, as its note above says.
      if (written?.empty && decision.transform !== 'redact') {
        const { kind, message, advice } = emptyFlag(e.expression, token.type, written.text, written.empty);
        flags.add('warning', kind, bodyAt(e), message, advice);
      }
    }
  }

  function preview({ application_id, content_type, body, at }: PreviewQuery): Answer<R, ExpressionPreview> {
    const inspected = refusal(() => expressions.inspectBody(body, bodyKindOf(content_type ?? undefined)), () => undefined) ?? [];
    const e = inspected.find(({ start, end }) => start <= at && at <= end);
    if (!e?.expression) {
      const problem: ExpressionPreview = e ? { from: e.start, to: e.end, token: null, produces: null, access: null, problem: e.error.reason } : null;
      return answerOf<R, undefined, ExpressionPreview>(undefined, () => problem);
    }
    const id = e.expression.ref.id;
    return answerOf<R, Map<string, TokenRecord>, ExpressionPreview>(tokens.maskedRecordsById([id]), (found) => previewOf(e, found.get(id), application_id));
  }

  /** preview's answer for the expression `e`, once its token's masked record is read (undefined: no live token). */
  function previewOf(e: CompiledAt, masked: TokenRecord | undefined, application_id: string | null): ExpressionPreview {
    const id = e.expression.ref.id;
    if (!masked) return { from: e.start, to: e.end, token: null, produces: null, access: null, problem: `No live token has the id ${id}` };
    const token = {
      id,
      type: masked.type,
      masked: masked.data === REDACTED ? null : (masked.data ?? null),
      containers: masked.containers,
      metadata: masked.metadata ?? {},
      expires_at: masked.expires_at ?? null,
    };
    const scope = scopeOf(application_id, false);
    const caller = scope.vault ? scope.caller : null;
    const access = caller && sentence(decidedBy(caller.policy.decide('token:use', token.containers), caller, 'token:use'));
    try {
      const produces = expressions.expressionWriter(new ExpressionBudget())(e, masked).text;
      return { from: e.start, to: e.end, token, produces, problem: null, access };
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      return { from: e.start, to: e.end, token, produces: null, problem: `From the masked data: ${error.reason}`, access };
    }
  }

  return { check, preview };
}
