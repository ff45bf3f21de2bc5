/**
 * A pre-configured proxy as the engine keeps it and as /proxies answers it (docs/api.md, Pre-configured proxies).
 */

import type { TransformType } from '../../../shared/workbench/proxy-contract';
export { TRANSFORM_TYPES, type TransformType } from '../../../shared/workbench/proxy-contract';

/** `options.runtime` of a code transform (vendor §2.6); absent means node-bt. */
import type { CallKeyUser } from '../access/runtime-keys';
import type { RuntimeOptions } from '../code-runtime';
import type { ResolvedSecrets } from '../server/log-headers';

export interface TransformOptions {
  token?: Record<string, unknown>;
  identifier?: string;
  value?: string;
  location?: string;
  runtime?: RuntimeOptions;
}

export interface ProxyTransform {
  type: TransformType;
  code?: string;
  matcher?: 'regex' | 'chase_stratus_pan';
  expression?: string;
  replacement?: string;
  options?: TransformOptions;
}

/** What a client sets: the body of POST and PUT, and what PATCH merges into. */
export interface ProxyDefinition {
  name: string;
  destination_url: string;
  request_transforms: ProxyTransform[];
  response_transforms: ProxyTransform[];
  application_id: string | null;
  configuration: Record<string, string>;
  require_auth: boolean;
  disable_detokenization: boolean;
}

/** A change asked for that is not live, and why (vendor §1.3 `requested`, §1.4): node22 dependencies not found. */
export interface RequestedChange {
  definition: ProxyDefinition;
  error_code: 'dependency_unavailable';
  error_message: string;
  /** By field path, as a 400's `errors`. */
  error_details: Record<string, string[]>;
}

export interface StoredProxy extends ProxyDefinition {
  id: string;
  /** The invocation key: made once, never changed by a write. */
  key: string;
  /** `failed`: `requested` is a change that could not go live; the definition above still serves if `live`. */
  state: 'active' | 'failed';
  requested: RequestedChange | null;
  /** Whether the proxy has a version that serves: one saved `failed` from the start answers 409 until it has. */
  live: boolean;
  created_by: string;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
  /** Set for a proxy loaded from the proxies folder: its file is its definition, so the API does not change it. */
  file?: ProxyFileSource;
}

/** Where a file proxy comes from, and how a call runs it. */
export interface ProxyFileSource {
  /** The file's path inside the proxies folder, with `/` between folders: `payments/charge.json`. */
  path: string;
  folder: string;
  /**
   * The proxy as one call runs it: its configuration's `${secret:NAME}` references put in (a missing secret is that
   * call's problem), and each value put in given to the call's log, which writes it back as its reference.
   */
  atCall(log: { secrets?: ResolvedSecrets }): StoredProxy;
}

/** The legacy singular field: the list's one transform, else null (vendor §1.7). */
const single = (list: readonly ProxyTransform[]) => (list.length === 1 ? list[0] : null);

/** `requested` on the wire: the change's fields the vendor lists, and why it is not live. */
function requestedView({ definition, error_code, error_message, error_details }: RequestedChange) {
  const { destination_url, configuration, require_auth, request_transforms, response_transforms } = definition;
  return { proxy: { destination_url, configuration, require_auth, request_transforms, response_transforms }, error_code, error_message, error_details };
}

/** The proxy object of the wire API (vendor §1.3). */
export function proxyView(proxy: StoredProxy, tenantId: string) {
  return {
    id: proxy.id,
    key: proxy.key,
    tenant_id: tenantId,
    name: proxy.name,
    destination_url: proxy.destination_url,
    request_transforms: proxy.request_transforms,
    response_transforms: proxy.response_transforms,
    request_transform: single(proxy.request_transforms),
    response_transform: single(proxy.response_transforms),
    application_id: proxy.application_id,
    configuration: proxy.configuration,
    require_auth: proxy.require_auth,
    disable_detokenization: proxy.disable_detokenization,
    state: proxy.state,
    requested: proxy.requested && requestedView(proxy.requested),
    proxy_host: null,
    timeout: null,
    client_certificate: null,
    request_reactor_id: null,
    response_reactor_id: null,
    created_by: proxy.created_by,
    created_at: proxy.created_at,
    ...(proxy.modified_at !== null && { modified_by: proxy.modified_by, modified_at: proxy.modified_at }),
  };
}

/** The fields a client set, as PATCH merges into them. */
export function definitionOf(proxy: StoredProxy): ProxyDefinition {
  const { name, destination_url, request_transforms, response_transforms, application_id, configuration, require_auth, disable_detokenization } = proxy;
  return { name, destination_url, request_transforms, response_transforms, application_id, configuration, require_auth, disable_detokenization };
}

/** Where a transform sits in its proxy, as a field path names it: `request_transforms[0]`. */
export function placeOf(proxy: StoredProxy, transform: ProxyTransform): string {
  const request = proxy.request_transforms.indexOf(transform);
  return request >= 0 ? `request_transforms[${request}]` : `response_transforms[${proxy.response_transforms.indexOf(transform)}]`;
}

/** The node22 code of the proxy that is given a key of its own for each call (§2.5), as the key's maker names it. */
export const callKeyUser = (proxy: StoredProxy, transform: ProxyTransform): CallKeyUser => ({ id: proxy.id, name: proxy.name, place: placeOf(proxy, transform) });

/** Each of the proxy's transforms whose node22 code holds `runtime.permissions`. */
export const callKeyUsersOf = (proxy: StoredProxy): CallKeyUser[] =>
  [...proxy.request_transforms, ...proxy.response_transforms]
    .filter((t) => t.options?.runtime?.image === 'node22' && (t.options.runtime.permissions?.length ?? 0) > 0)
    .map((t) => callKeyUser(proxy, t));
