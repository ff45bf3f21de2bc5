/**
 * A pre-configured proxy as the engine keeps it and as /proxies answers it (docs/api.md, Pre-configured proxies).
 */

import type { TransformType } from '../../../shared/workbench/proxy-contract';
export { TRANSFORM_TYPES, type TransformType } from '../../../shared/workbench/proxy-contract';

/** `options.runtime` of a code transform (vendor §2.6); absent means node-bt. */
import type { RuntimeOptions } from '../code-runtime';

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

export interface StoredProxy extends ProxyDefinition {
  id: string;
  /** The invocation key: made once, never changed by a write. */
  key: string;
  state: 'active';
  created_by: string;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

/** The legacy singular field: the list's one transform, else null (vendor §1.7). */
const single = (list: readonly ProxyTransform[]) => (list.length === 1 ? list[0] : null);

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
    requested: null,
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
