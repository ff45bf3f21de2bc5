import { z } from 'zod';
import { wireRequestFields } from './composer-contract';

/**
 * Pre-configured proxies as the Proxies page edits them (docs/api.md, Pre-configured proxies). The shape is checked
 * here; what the fields mean (a destination the proxy can reach, a transform's required options, code that compiles)
 * the engine checks as POST and PUT /proxies do, naming each field it refuses (`request_transforms[0].code`).
 */

export const TRANSFORM_TYPES = ['code', 'tokenize', 'mask', 'append_json', 'append_text', 'append_header'] as const;
export type TransformType = (typeof TRANSFORM_TYPES)[number];
/** The types a request transform may have; the rest run on responses only. */
export const REQUEST_TRANSFORM_TYPES: readonly TransformType[] = ['code', 'tokenize'];
export const RUNTIME_IMAGES = ['node-bt', 'node22'] as const;
export const RUNTIME_RESOURCES = ['standard', 'large', 'xlarge'] as const;

const text = (max: number) => z.string().max(max);

export const runtimeSchema = z.object({
  image: z.enum(RUNTIME_IMAGES),
  timeout: z.number().int().optional(),
  resources: z.string().optional(),
  dependencies: z.record(z.string(), z.string()).optional(),
  resolutions: z.record(z.string(), z.string()).optional(),
  warm_concurrency: z.number().int().optional(),
  permissions: z.array(z.string()).optional(),
  /** Reactors only: react-async may run up to 900 s. */
  async: z.boolean().optional(),
});
export type RuntimeOptionsView = z.output<typeof runtimeSchema>;

export const proxyTransformSchema = z.object({
  type: z.enum(TRANSFORM_TYPES),
  code: text(100_000).optional(),
  matcher: z.enum(['regex', 'chase_stratus_pan']).optional(),
  expression: text(10_000).optional(),
  replacement: text(10).optional(),
  options: z
    .object({
      token: z.record(z.string(), z.unknown()).optional(),
      identifier: text(200).optional(),
      value: text(100_000).optional(),
      location: text(1000).optional(),
      runtime: runtimeSchema.optional(),
    })
    .optional(),
});
export type ProxyTransformView = z.output<typeof proxyTransformSchema>;

/** What the page sets of a proxy: the body of POST and PUT /proxies, in the stored form. */
const proxyDefinitionFields = {
  name: text(1000),
  destination_url: text(4000),
  request_transforms: z.array(proxyTransformSchema).max(50),
  response_transforms: z.array(proxyTransformSchema).max(50),
  application_id: z.string().min(1).max(200).nullable(),
  configuration: z.record(z.string().max(200), z.string().max(16 * 1024)),
  require_auth: z.boolean(),
  disable_detokenization: z.boolean().default(false),
};

/** One resource by its id: a proxy, a reactor. */
export const proxyRefSchema = z.strictObject({ id: z.string().min(1).max(200) });
export const newProxySchema = z.strictObject(proxyDefinitionFields);
export const proxyChangeSchema = z.strictObject({ id: z.string().min(1).max(200), ...proxyDefinitionFields });
export type ProxyDefinitionInput = z.input<typeof newProxySchema>;

/**
 * A proxy as the page shows it: its definition, state and dates. Its key is named by its last four characters only:
 * the invocation snippet reads the key from the environment, as it does the caller's.
 */
export const proxyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  destination_url: z.string(),
  request_transforms: z.array(proxyTransformSchema),
  response_transforms: z.array(proxyTransformSchema),
  application_id: z.string().nullable(),
  configuration: z.record(z.string(), z.string()),
  require_auth: z.boolean(),
  disable_detokenization: z.boolean(),
  state: z.string(),
  key_last4: z.string(),
  created_at: z.string(),
  modified_at: z.string().nullable(),
  /**
   * Set for a proxy loaded from the proxies folder, which only its file changes: its path in the folder, and what is
   * wrong with the file now (the last good version serving) or what it loads with.
   */
  file: z
    .object({
      path: z.string(),
      problems: z.array(z.string()).optional(),
      warnings: z.array(z.string()).optional(),
    })
    .optional(),
});
export type ProxyView = z.output<typeof proxyViewSchema>;

/**
 * A sample request through a proxy, from the Proxies page: `path` is what follows `/proxy` (`/charges?x=1`), sent as
 * the application with its workbench key and the proxy's key; its answer's history entry carries the pipeline trace.
 */
export const proxyTrySchema = z.strictObject({
  /** Chosen by the page, so it can cancel the request while it runs. */
  request_id: z.string().min(1).max(100),
  id: z.string().min(1).max(200),
  application_id: z.string().min(1).max(200),
  ...wireRequestFields,
});
