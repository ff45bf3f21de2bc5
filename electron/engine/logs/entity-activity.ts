/**
 * What a request did to which entity, as `GET /logs` reports it (docs/api.md, Logs): derived from the route that
 * handled it, its path parameters, its answer and what it put in its history entry, never from a value it carried.
 * A new route that acts on an entity adds its row to ACTIVITIES.
 */

/** The entity types `GET /logs/entity-types` lists, with the names it shows (vendor-surfaces.md §6.2). */
export const ENTITY_TYPES = {
  application: 'Application',
  bank: 'Bank',
  card: 'Card',
  proxy: 'Proxy',
  reactor: 'Reactor',
  tenant: 'Tenant',
  token: 'Token',
  token_intent: 'Token Intent',
  webhook: 'Webhook',
} as const;
export type EntityType = keyof typeof ENTITY_TYPES;

export type Operation = 'create' | 'read' | 'update' | 'delete' | 'invoke';

/** One log line's facts: the store adds its id, tenant and time. */
export interface Activity {
  /**
   * The application whose key the request carried; null for a call that needed none (a proxy without require_auth).
   * For the workbench's own actions, the person (`actor_type` "user"): a credential's id, or `workbench` for its owner.
   */
  actor_id: string | null;
  /** "user" for a workbench person; absent for an application. */
  actor_type?: 'user';
  entity_type: EntityType;
  entity_id: string;
  operation: Operation;
  message: string;
}

/** What a finished request offers for its log lines. */
export interface HandledRequest {
  params: Record<string, string | undefined>;
  /** The JSON answer's body; undefined for an empty answer or one the route wrote itself (the proxy). */
  body: unknown;
  /** What the route put in its history entry (a proxy's or reactor's id). */
  details: Record<string, unknown> | undefined;
  /** The type of the token a request deleted, which its empty answer does not show. */
  tokenType: string | undefined;
}

type Entity = { type: EntityType; id: string };

interface ActivityRow {
  operation: Operation;
  message: string;
  /** The entities acted on; none when the request does not name one (the row then yields no line). */
  entities(request: HandledRequest): Entity[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A card token is logged as `card`, a bank token as `bank`, any other type as `token` (vendor-surfaces.md §6.2). */
export function tokenEntityType(tokenType: string): EntityType {
  return tokenType === 'card' || tokenType === 'bank' ? tokenType : 'token';
}

const one = (type: EntityType, id: string | undefined): Entity[] => (id === undefined ? [] : [{ type, id }]);

/** The entity of a path's `:id`, or of the answer's `id` (a create). */
const byParam = (type: EntityType) => (r: HandledRequest) => one(type, r.params.id);
const byAnswer = (type: EntityType) => (r: HandledRequest) => one(type, isObject(r.body) ? stringOr(r.body.id) : undefined);

/** A token the answer shows (create, read, update): its type is in it. */
function tokenInAnswer(r: HandledRequest): Entity[] {
  if (!isObject(r.body) || typeof r.body.id !== 'string' || typeof r.body.type !== 'string') return [];
  return [{ type: tokenEntityType(r.body.type), id: r.body.id }];
}

/**
 * POST /tokenize answers its body's shape with tokens in it: a token object where a token request was, a `token`
 * token's id where a primitive leaf was.
 */
function tokenizedTokens(r: HandledRequest): Entity[] {
  const found: Entity[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') found.push({ type: 'token', id: value });
    else if (Array.isArray(value)) value.forEach(walk);
    else if (isObject(value)) {
      if (typeof value.id === 'string' && typeof value.type === 'string' && typeof value.tenant_id === 'string') {
        found.push({ type: tokenEntityType(value.type), id: value.id });
      } else Object.values(value).forEach(walk);
    }
  };
  walk(r.body);
  return found;
}

/** The entity whose id the route put in its history details under `key` (`proxy: {id}`, `reactor: {id}`). */
const inDetails = (type: EntityType, key: string) => (r: HandledRequest) => {
  const named = r.details?.[key];
  return one(type, isObject(named) ? stringOr(named.id) : undefined);
};

const crud = (type: EntityType, noun: string, path: string, patch = false): Record<string, ActivityRow> => ({
  [`POST ${path}`]: { operation: 'create', message: `${noun} created`, entities: byAnswer(type) },
  [`GET ${path}/:id`]: { operation: 'read', message: `${noun} retrieved`, entities: byParam(type) },
  [`PUT ${path}/:id`]: { operation: 'update', message: `${noun} updated`, entities: byParam(type) },
  ...(patch && { [`PATCH ${path}/:id`]: { operation: 'update' as const, message: `${noun} updated`, entities: byParam(type) } }),
  [`DELETE ${path}/:id`]: { operation: 'delete', message: `${noun} deleted`, entities: byParam(type) },
});

const proxyInvoked: ActivityRow = { operation: 'invoke', message: 'Proxy invoked', entities: inDetails('proxy', 'proxy') };
const reactorInvoked: ActivityRow = { operation: 'invoke', message: 'Reactor invoked', entities: inDetails('reactor', 'reactor') };

/** Keyed by the route as the router knows it: its method and path pattern. Lists and searches name no one entity. */
export const ACTIVITIES: Readonly<Record<string, ActivityRow>> = {
  'POST /tokens': { operation: 'create', message: 'Token created', entities: tokenInAnswer },
  'GET /tokens/:id': { operation: 'read', message: 'Token retrieved', entities: tokenInAnswer },
  'PATCH /tokens/:id': { operation: 'update', message: 'Token updated', entities: tokenInAnswer },
  'DELETE /tokens/:id': {
    operation: 'delete',
    message: 'Token deleted',
    entities: (r) => (r.tokenType === undefined ? [] : one(tokenEntityType(r.tokenType), r.params.id)),
  },
  'POST /tokenize': { operation: 'create', message: 'Token created', entities: tokenizedTokens },
  ...crud('application', 'Application', '/applications'),
  'GET /applications/key': { operation: 'read', message: 'Application retrieved', entities: byAnswer('application') },
  'POST /applications/:id/regenerate': { operation: 'update', message: 'Application key regenerated', entities: byParam('application') },
  'POST /applications/:id/keys': { operation: 'update', message: 'Application key created', entities: byParam('application') },
  'DELETE /applications/:id/keys/:keyId': { operation: 'update', message: 'Application key revoked', entities: byParam('application') },
  ...crud('proxy', 'Proxy', '/proxies', true),
  ...Object.fromEntries(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].flatMap((method) => [[`${method} /proxy`, proxyInvoked], [`${method} /proxy/*`, proxyInvoked]])),
  ...crud('reactor', 'Reactor', '/reactors', true),
  'POST /reactors/:id/react': reactorInvoked,
  'POST /reactors/:id/react-async': reactorInvoked,
  'POST /token-intents': { operation: 'create', message: 'Token intent created', entities: byAnswer('token_intent') },
  'GET /token-intents/:id': { operation: 'read', message: 'Token intent retrieved', entities: byParam('token_intent') },
  'DELETE /token-intents/:id': { operation: 'delete', message: 'Token intent deleted', entities: byParam('token_intent') },
  ...crud('webhook', 'Webhook', '/webhooks'),
  'GET /tenants/self': { operation: 'read', message: 'Tenant retrieved', entities: byAnswer('tenant') },
  'PUT /tenants/self': { operation: 'update', message: 'Tenant updated', entities: byAnswer('tenant') },
};

/** The log lines of a request that succeeded on route `route` (`GET /tokens/:id`); none for a route not in the table. */
export function activitiesOf(route: string, actorId: string | null, request: HandledRequest): Activity[] {
  const row = ACTIVITIES[route];
  if (row === undefined) return [];
  return row.entities(request).map(({ type, id }) => ({ actor_id: actorId, entity_type: type, entity_id: id, operation: row.operation, message: row.message }));
}

/** The collections of the workbench's own action paths (`/proxies/{id}`, `/applications/{id}/keys/…`) and their entity types. */
const ACTION_ENTITIES: Readonly<Record<string, EntityType>> = {
  applications: 'application',
  proxies: 'proxy',
  reactors: 'reactor',
  webhooks: 'webhook',
  tokens: 'token',
  'token-intents': 'token_intent',
  tenants: 'tenant',
};
const ACTION_OPERATIONS: Readonly<Record<string, Operation>> = { CREATE: 'create', IMPORT: 'create', UPDATE: 'update', DELETE: 'delete', REVEAL: 'read', SEND: 'invoke' };
const ACTION_PATH = /^\/([a-z-]+)\/([^/?#]+)(\/[^?#]*)?/;
/** A log message is at most 250 characters (vendor-surfaces.md §6.2). */
const MESSAGE_LIMIT = 250;

/**
 * The log line of an action the workbench took itself (a change in Settings, a reveal), which reaches no route: its
 * entity from the action's path, by `actor` (docs/api.md, Logs). None for actions on no entity (a saved request, a
 * wipe). A nested path (an application's key) is an update of its parent; a token is logged as `token`, whatever its
 * type, as the action does not say it.
 */
export function workbenchActivities(action: { method: string; path: string; summary: string | undefined }, actorId: string): Activity[] {
  const operation = ACTION_OPERATIONS[action.method];
  const match = ACTION_PATH.exec(action.path);
  const type = match && ACTION_ENTITIES[match[1]];
  if (!operation || !match || !type) return [];
  const nested = match[3] !== undefined && match[3] !== '/';
  const message = (action.summary ?? `${ENTITY_TYPES[type]} ${operation}d`).slice(0, MESSAGE_LIMIT);
  return [{ actor_id: actorId, actor_type: 'user', entity_type: type, entity_id: decodeURIComponent(match[2]), operation: nested && operation !== 'read' ? 'update' : operation, message }];
}
