/**
 * The bodies of POST, PUT and PATCH /proxies (vendor §1.2, §2.1–2.2, §2.6), checked once at the boundary: a 400 whose
 * `errors` name each field as `request_transforms[0].code`.
 */
import { z } from 'zod';
import { applicationTypeHolding, PERMISSIONS } from '../access/permissions';
import { parseDestinationUrl } from '../proxy/destination-url';
import { validationProblem } from '../server/problem';
import { parseWith, unsupported } from '../server/validation';
import { type ProxyDefinition, type ProxyTransform, TRANSFORM_TYPES } from './proxy-model';
import { appendPathNames, captureGroups } from './response-transforms';

export const MAX_CODE_CHARS = 50_000;
export const MAX_CONFIGURATION_ENTRIES = 25;
const CONFIGURATION_KEY = /^[A-Za-z0-9_]+$/;
const IDENTIFIER = /^[A-Za-z0-9_-]+$/;
/** RFC 9110 token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const NODE22_ONLY = ['dependencies', 'resolutions', 'warm_concurrency', 'timeout', 'resources', 'permissions'] as const;
const RESPONSE_ONLY = new Set(['mask', 'append_json', 'append_text', 'append_header']);

/** The vendor's SDKs and their users send `null` for a field they leave out: it counts as absent. */
const withoutNulls = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) : value;

/** node22 runs a synchronous call for at most this many seconds, an asynchronous reactor's for at most ASYNC_TIMEOUT_S (§2.6). */
const SYNC_TIMEOUT_S = 30;
export const ASYNC_TIMEOUT_S = 900;

/**
 * A code transform's `options.runtime`, or a reactor's `runtime` (§2.6), which may also be `async` (node22 only) and
 * then run for up to 900 s.
 */
export const runtimeSchema = (owner: 'transform' | 'reactor') =>
  z.preprocess(
    withoutNulls,
    z
      .object({
        image: z.enum(['node-bt', 'node22'], { error: 'image must be node-bt or node22' }).default('node-bt'),
        dependencies: z.record(z.string(), z.string()).optional(),
        resolutions: z.record(z.string(), z.string()).optional(),
        warm_concurrency: z.int().min(0).max(1).optional(),
        timeout: z.int().min(10).max(owner === 'reactor' ? ASYNC_TIMEOUT_S : SYNC_TIMEOUT_S).optional(),
        resources: z.enum(['standard', 'large', 'xlarge']).optional(),
        permissions: z.array(z.enum(PERMISSIONS, { error: `each permission must be one of ${PERMISSIONS.join(', ')}` })).optional(),
        async: z.boolean().optional(),
      })
      .superRefine((r, ctx) => {
        if (r.image === 'node22') {
          // The code's key belongs to one application, and no application type holds token and management permissions at once.
          if (r.permissions && applicationTypeHolding(r.permissions) === null) {
            ctx.addIssue({ code: 'custom', path: ['permissions'], message: 'permissions must all be token permissions (and proxy:invoke) or all management permissions: one key holds them' });
          }
          if (!r.async && r.timeout !== undefined && r.timeout > SYNC_TIMEOUT_S) {
            ctx.addIssue({ code: 'custom', path: ['timeout'], message: `timeout may exceed ${SYNC_TIMEOUT_S} s only with async: true` });
          }
          return;
        }
        for (const field of owner === 'reactor' ? [...NODE22_ONLY, 'async' as const] : NODE22_ONLY) {
          if (r[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${field} is for the node22 runtime only` });
        }
      })
      // A transform never runs asynchronously: the field is left out as any unknown one is.
      .transform(({ async, ...rest }) => (owner === 'reactor' && async !== undefined ? { ...rest, async } : rest)),
  );
const runtime = runtimeSchema('transform');

const options = z.preprocess(
  withoutNulls,
  z.object({
    token: z.record(z.string(), z.unknown(), { error: 'token must be a create-token request (an object)' }).optional(),
    identifier: z.string().max(100).regex(IDENTIFIER, 'identifier may hold letters, digits, - and _ only').optional(),
    value: z.string().optional(),
    location: z.string().optional(),
    runtime: runtime.optional(),
  }),
);

type Side = 'request' | 'response';

function transform(side: Side) {
  return z.preprocess(
    withoutNulls,
    z
      .object({
        type: z.enum(TRANSFORM_TYPES, { error: `type must be one of ${TRANSFORM_TYPES.join(', ')}` }).default('code'),
        code: z.string().min(1, 'code is required').max(MAX_CODE_CHARS, `code may hold at most ${MAX_CODE_CHARS} characters`).optional(),
        matcher: z.enum(['regex', 'chase_stratus_pan'], { error: 'matcher must be regex or chase_stratus_pan' }).optional(),
        expression: z.string().optional(),
        replacement: z.string().optional(),
        options: options.optional(),
      })
      .superRefine((t, ctx) => {
        const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
        if (side === 'request' && RESPONSE_ONLY.has(t.type)) issue(['type'], `a ${t.type} transform runs on responses only`);
        const { value, location, token } = t.options ?? {};
        switch (t.type) {
          case 'code':
            if (t.code === undefined) issue(['code'], 'code is required');
            for (const field of ['matcher', 'expression', 'replacement'] as const) if (t[field] !== undefined) issue([field], `${field} is for mask transforms only`);
            break;
          case 'tokenize':
            if (token === undefined) issue(['options', 'token'], 'options.token is required');
            break;
          case 'mask':
            if (t.matcher === undefined) issue(['matcher'], 'matcher is required');
            if (t.replacement === undefined || [...t.replacement].length !== 1) issue(['replacement'], 'replacement must be exactly one character');
            if (t.matcher === 'regex') {
              if (t.expression === undefined) issue(['expression'], 'expression is required with the regex matcher');
              else if (captureGroups(t.expression) === null) issue(['expression'], 'expression is not a valid regular expression');
              else if (captureGroups(t.expression) === 0) issue(['expression'], 'expression needs at least one capture group');
            } else if (t.expression !== undefined) issue(['expression'], 'expression is not taken with the chase_stratus_pan matcher');
            break;
          case 'append_json':
            if (value === undefined) issue(['options', 'value'], 'options.value is required');
            if (location === undefined) issue(['options', 'location'], 'options.location is required');
            else if (appendPathNames(location) === null) issue(['options', 'location'], "location must be a JSONPath of member names, such as $.a.b or $['a'].b");
            break;
          case 'append_text':
            if (value === undefined) issue(['options', 'value'], 'options.value is required');
            break;
          case 'append_header':
            if (value === undefined) issue(['options', 'value'], 'options.value is required');
            if (location === undefined) issue(['options', 'location'], 'options.location is required');
            else if (!HEADER_NAME.test(location)) issue(['options', 'location'], 'location must be a header name (an HTTP token)');
            break;
        }
        if (t.type !== 'code' && t.options?.runtime !== undefined) issue(['options', 'runtime'], 'runtime is for code transforms only');
      }),
  ) as unknown as z.ZodType<ProxyTransform>;
}

/** At most one code transform per list (vendor: Terraform), and each tokenize identifier once. */
function transformList(side: Side) {
  return z.array(transform(side)).superRefine((list, ctx) => {
    const codes = list.flatMap((t, i) => (t.type === 'code' ? [i] : []));
    for (const i of codes.slice(1)) ctx.addIssue({ code: 'custom', path: [i, 'type'], message: 'a list holds at most one code transform' });
    const seen = new Set<string>();
    list.forEach((t, i) => {
      const identifier = t.options?.identifier;
      if (identifier === undefined) return;
      if (seen.has(identifier)) ctx.addIssue({ code: 'custom', path: [i, 'options', 'identifier'], message: `identifier ${identifier} is used twice in this list` });
      seen.add(identifier);
    });
  });
}

const REMOVED_REACTOR = 'Request and response reactors were removed from proxies by the vendor in 2023: use request_transforms and response_transforms';

export const configuration = z.record(z.string(), z.string({ error: 'configuration values must be strings' })).superRefine((map, ctx) => {
  const keys = Object.keys(map);
  if (keys.length > MAX_CONFIGURATION_ENTRIES) ctx.addIssue({ code: 'custom', message: `configuration holds at most ${MAX_CONFIGURATION_ENTRIES} entries` });
  for (const key of keys) if (!CONFIGURATION_KEY.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'configuration keys may hold letters, digits and _ only' });
});

/** POST and PUT /proxies; also what a PATCH merged into the stored definition must satisfy. */
const proxyRequest = z
  .object({
    name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(200, 'name may hold at most 200 characters'),
    destination_url: z
      .string({ error: 'destination_url is required' })
      .max(400, 'destination_url may hold at most 400 characters')
      .superRefine((value, ctx) => {
        const url = parseDestinationUrl(value);
        if (typeof url === 'string') ctx.addIssue({ code: 'custom', message: `destination_url ${url}` });
      }),
    request_transforms: transformList('request').nullish(),
    response_transforms: transformList('response').nullish(),
    request_transform: transform('request').nullish(),
    response_transform: transform('response').nullish(),
    application: z.object({ id: z.string({ error: 'application.id is required' }) }).nullish(),
    application_id: z.string().nullish(),
    configuration: configuration.nullish(),
    require_auth: z.boolean().nullish(),
    disable_detokenization: z.boolean().nullish(),
    request_reactor_id: unsupported(REMOVED_REACTOR),
    response_reactor_id: unsupported(REMOVED_REACTOR),
  })
  .superRefine((p, ctx) => {
    for (const side of ['request', 'response'] as const) {
      if (p[`${side}_transform`] && p[`${side}_transforms`]) {
        ctx.addIssue({ code: 'custom', path: [`${side}_transform`], message: `give ${side}_transforms or the legacy ${side}_transform, not both` });
      }
    }
  })
  .transform(
    (p): ProxyDefinition => ({
      name: p.name,
      destination_url: p.destination_url,
      request_transforms: p.request_transforms ?? (p.request_transform ? [p.request_transform] : []),
      response_transforms: p.response_transforms ?? (p.response_transform ? [p.response_transform] : []),
      application_id: p.application?.id ?? p.application_id ?? null,
      configuration: p.configuration ?? {},
      require_auth: p.require_auth ?? true,
      disable_detokenization: p.disable_detokenization ?? false,
    }),
  );

export const parseProxyRequest = (body: unknown): ProxyDefinition => parseWith(proxyRequest, body, '', 'brackets');

/**
 * A PATCH body (RFC 7386) in the stored definition's terms: the legacy singular fields become their lists, and
 * `application` its id, before it is merged. Its own fields' shapes are checked after the merge, with the whole.
 */
export function patchInTermsOfDefinition(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationProblem({ body: ['A merge patch is a JSON object'] });
  }
  const patch: Record<string, unknown> = { ...body };
  for (const side of ['request', 'response'] as const) {
    const single = patch[`${side}_transform`];
    // Both given: left for the whole's check to refuse.
    if (single === undefined || patch[`${side}_transforms`] !== undefined) continue;
    delete patch[`${side}_transform`];
    patch[`${side}_transforms`] = single === null ? [] : [single];
  }
  if ('application' in patch) {
    const application = patch.application as { id?: unknown } | null;
    delete patch.application;
    patch.application_id = application === null ? null : application?.id;
  }
  return patch;
}
