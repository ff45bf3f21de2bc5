import { z } from 'zod';
import { COMPOSER_METHODS } from './collection-contract';
import { headerPairsSchema, historyEntrySchema } from './history-contract';

/**
 * What the Composer asks of the engine: a request sent and what came back, flags on a request before it is sent, what
 * an expression would produce, token completions, remote targets and code to copy. Validated like the rest of the
 * contract (live-contract.ts): requests by the engine, replies by the page.
 */

const isoTimeSchema = z.string();

// ---- Sending ------------------------------------------------------------------------------------------------------

/** A composed request as a client sends it: its method, its path and query (`/proxy/v1/charges?x=1`), headers and body. */
export const wireRequestFields = {
  method: z.enum(COMPOSER_METHODS),
  path: z.string().startsWith('/').max(16 * 1024),
  headers: z.array(z.tuple([z.string().min(1).max(1024), z.string().max(16 * 1024)])).max(200),
  body: z.string().nullable(),
};

/** Where a composed request goes: the local engine as one of its applications, or a remote target with its key. */
export const requestTargetFields = {
  application_id: z.string().min(1).max(200).optional(),
  /** A remote target (listRemoteTargets): sent there instead, with the key the engine keeps for it. */
  target_id: z.string().min(1).max(100).optional(),
};

/**
 * Through a pre-configured proxy (listProxyChoices), on the local engine only: the path is what follows /proxy, and the
 * engine adds the proxy's key as PFX-PROXY-KEY as the request leaves, so the page never holds it.
 */
export const proxyChoiceField = { proxy_id: z.string().min(1).max(100).optional() };
/** A request through a pre-configured proxy goes to this engine, as an application: never to a remote target. */
const localProxy = [
  (request: { proxy_id?: string; target_id?: string }) => request.proxy_id === undefined || request.target_id === undefined,
  'A pre-configured proxy is one of the local engine: give proxy_id with application_id',
] as const;

/** A pre-configured proxy as the Composer offers it, by name; never its key. */
export const proxyChoiceSchema = z.object({ id: z.string(), name: z.string(), destination_url: z.string() });
export type ProxyChoice = z.output<typeof proxyChoiceSchema>;

/** Exactly one of application_id and target_id. */
export const oneTarget = (request: { application_id?: string; target_id?: string }) => (request.application_id === undefined) !== (request.target_id === undefined);
export const ONE_TARGET = 'Give either application_id (the local engine) or target_id (a remote target)';

/**
 * A request composed in the workbench, exactly as a client would send it to the service. The engine adds only the key:
 * the chosen application's, or the remote target's.
 */
export const composedRequestSchema = z
  .strictObject({
    /** Chosen by the page, so it can cancel the request while it runs. */
    id: z.string().min(1).max(100),
    ...requestTargetFields,
    ...proxyChoiceField,
    ...wireRequestFields,
  })
  .refine(oneTarget, ONE_TARGET)
  .refine(...localProxy);
export type ComposedRequest = z.output<typeof composedRequestSchema>;

/** What came back to a composed request. */
export const exchangeOutcomeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('response'),
    status: z.number().int(),
    /** The reason phrase the server sent. */
    status_text: z.string(),
    headers: headerPairsSchema,
    /** The body, base64: a destination's answer may be any bytes. */
    body_base64: z.string(),
    /** The body's whole size; the workbench keeps at most its first part. */
    bytes: z.number().int().nonnegative(),
    truncated: z.boolean(),
    /**
     * How many places of the headers and body repeat a value this service's proxy detokenized into the request, each
     * masked here; revealAnswer shows them (0: nothing to reveal).
     */
    masked: z.number().int().nonnegative(),
  }),
  /** The service could not be reached: what was tried and what came back. */
  z.object({ kind: z.literal('unreachable'), code: z.string().nullable(), detail: z.string() }),
  /** The user cancelled it before the answer was complete. */
  z.object({ kind: z.literal('cancelled') }),
]);

/** A composed request as it left, what came back, and the history entry the engine wrote for it. */
export const exchangeSchema = z.object({
  request: z.object({ method: z.string(), url: z.string(), headers: headerPairsSchema, bytes: z.number().int() }),
  outcome: exchangeOutcomeSchema,
  duration_ms: z.number(),
  /** The engine's record of the request (masked), when it wrote one: who answered, and why a proxy call failed. */
  entry: historyEntrySchema.nullable(),
});
export type Exchange = z.output<typeof exchangeSchema>;

// ---- Flags ---------------------------------------------------------------------------------------------------------

/**
 * The body as a change to the one checked last for the same draft: the text from `from` to `to` of that body replaced
 * by `insert`. A keystroke in a large body then sends the keystroke, not the body.
 */
export const bodyEditSchema = z
  .strictObject({
    /** The draft's revision it changes; the engine answers 409 when it no longer holds it, and the whole body is sent. */
    base: z.number().int().nonnegative(),
    from: z.number().int().nonnegative(),
    to: z.number().int().nonnegative(),
    insert: z.string(),
  })
  .refine(({ from, to }) => from <= to, { message: 'from must not be after to', path: ['to'] });
export type BodyEdit = z.output<typeof bodyEditSchema>;

/** The request being composed on one page, checked again at each change: the engine keeps its last body. */
export const checkedDraftSchema = z.strictObject({
  /** Chosen by the page, one per page. */
  id: z.string().min(1).max(100),
  /** Counts the draft's checks. */
  revision: z.number().int().nonnegative(),
  /** The body as its change since an earlier revision, sent instead of it (the request's body is then null). */
  edit: bodyEditSchema.optional(),
});

/** A composed request to check: as it would be sent, and to whom. */
export const requestCheckQuerySchema = z
  .strictObject({
    /** The application it would be sent as; null checks without access rules (no application chosen). */
    application_id: z.string().min(1).max(200).nullable(),
    /** A remote target: only what does not depend on the local vault, its rules and its settings is checked. */
    target_id: z.string().min(1).max(100).nullable(),
    ...proxyChoiceField,
    ...wireRequestFields,
    /** Names the draft, so its body is kept for the next check to change. */
    draft: checkedDraftSchema.optional(),
  })
  .refine(({ body, draft }) => draft?.edit === undefined || body === null, {
    message: "A draft's edit stands for the body: send the body as null with it",
    path: ['body'],
  });
export type RequestCheckQuery = z.output<typeof requestCheckQuerySchema>;
/** A check's request with its whole body, as the proxy's checks read it. */
export type RequestToCheck = Omit<RequestCheckQuery, 'draft'>;

/** Where in the request a flag points: a stretch of the body (UTF-16 offsets, as the editor counts), or a part. */
export const flagPlaceSchema = z.discriminatedUnion('part', [
  z.object({ part: z.literal('body'), from: z.number().int().nonnegative(), to: z.number().int().nonnegative() }),
  z.object({ part: z.literal('header'), name: z.string() }),
  z.object({ part: z.literal('query'), name: z.string() }),
  z.object({ part: z.literal('path') }),
  /** The request as a whole: who sends it, where it goes. */
  z.object({ part: z.literal('request') }),
]);
export type FlagPlace = z.output<typeof flagPlaceSchema>;

export const FLAG_KINDS = [
  'broken_expression',
  'unknown_token',
  'forbidden_token',
  'evaluation',
  /** A `json` filter's JSONPath that matches nothing in the token: the expression would be sent empty. */
  'json_path_no_match',
  /** An expression the proxy would write as nothing (`""`, `null`, or no text at all). */
  'renders_empty',
  'expression_limit',
  'outside_body',
  'masked_use',
  'refused',
  'compatibility',
  /** A `${env:…}` or `${secret:…}` the engine cannot put in: the request is refused before it is sent. */
  'unresolved_reference',
] as const;

/** One thing the service would refuse or do differently, in words, with what to do about it. */
export const requestFlagSchema = z.object({
  /** error: the request would fail; warning: it would not do what it seems to; info: worth knowing. */
  severity: z.enum(['error', 'warning', 'info']),
  kind: z.enum(FLAG_KINDS),
  at: flagPlaceSchema,
  /** What is wrong, with the answer the service would give (`403 …`). */
  message: z.string(),
  advice: z.string().nullable(),
});
export type RequestFlag = z.output<typeof requestFlagSchema>;

export const requestCheckSchema = z.object({
  flags: z.array(requestFlagSchema),
  /** The body's expressions that compile: where each is, and the token it names (for hovers). */
  expressions: z.array(z.object({ from: z.number().int(), to: z.number().int(), token_id: z.string() })),
  /** Whether the local vault, access rules and compatibility were consulted (not for a remote target). */
  vault_checked: z.boolean(),
});
export type RequestCheck = z.output<typeof requestCheckSchema>;

// ---- Tokens for completion and hovers ------------------------------------------------------------------------------

/** A token as the editor offers it: its data masked as a masked read shows it (null when redacted). */
export const tokenSuggestionSchema = z.object({
  id: z.string(),
  type: z.string(),
  masked: z.unknown(),
  containers: z.array(z.string()),
  metadata: z.record(z.string(), z.string()),
  expires_at: isoTimeSchema.nullable(),
});
export type TokenSuggestion = z.output<typeof tokenSuggestionSchema>;

export const TOKEN_SUGGESTIONS_MAX = 50;

/** Tokens whose id starts with or holds the text, or whose type, container, metadata or masked data holds it. */
export const tokenSuggestionQuerySchema = z.strictObject({
  text: z.string().max(400),
  limit: z.number().int().min(1).max(TOKEN_SUGGESTIONS_MAX).default(20),
});

/** The expression at an offset of a body, to preview. */
export const expressionPreviewQuerySchema = z.strictObject({
  application_id: z.string().min(1).max(200).nullable(),
  content_type: z.string().max(1024).nullable(),
  body: z.string(),
  at: z.number().int().nonnegative(),
});

/** What an expression names and would write, computed from the token's masked data: never plaintext. */
export const expressionPreviewSchema = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    token: tokenSuggestionSchema.nullable(),
    /** What it would write into the body, from the masked data; null when that cannot be computed. */
    produces: z.string().nullable(),
    /** Why it cannot be computed, or why the request would fail here. */
    problem: z.string().nullable(),
    /** How the chosen application would use the token (revealed, masked, refused) and which rule decides. */
    access: z.string().nullable(),
  })
  .nullable();
export type ExpressionPreview = z.output<typeof expressionPreviewSchema>;

// ---- Remote targets ------------------------------------------------------------------------------------------------

/** A service the Composer can send to instead of the local engine; its key stays in the engine. */
export const remoteTargetSchema = z.object({
  id: z.string(),
  name: z.string(),
  base_url: z.string(),
  /** The key's last four characters: all of it the engine ever shows. */
  key_last4: z.string(),
  created_at: isoTimeSchema,
});
export type RemoteTarget = z.output<typeof remoteTargetSchema>;

export const newRemoteTargetSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  base_url: z.string().trim().min(1).max(2048),
  api_key: z.string().trim().min(1).max(4096),
});

// ---- Code to copy --------------------------------------------------------------------------------------------------

export const SNIPPET_FORMATS = ['curl', 'node'] as const;
export type SnippetFormat = (typeof SNIPPET_FORMATS)[number];

/** The request as a client sends it to its target, as code: the key read from $BT_API_KEY unless asked to include it. */
export const requestSnippetQuerySchema = z
  .strictObject({
    ...requestTargetFields,
    ...proxyChoiceField,
    ...wireRequestFields,
    format: z.enum(SNIPPET_FORMATS),
    include_key: z.boolean().default(false),
  })
  .refine(oneTarget, ONE_TARGET)
  .refine(...localProxy)
  // A remote target's key is the user's own, pasted once: the engine shows its last four characters and no more.
  .refine((query) => !(query.include_key && query.target_id !== undefined), {
    path: ['include_key'],
    message: "A remote target's key never leaves the engine: leave include_key off, and the snippet reads the key from $BT_API_KEY",
  });

export const requestSnippetSchema = z.object({
  snippet: z.string(),
  /** The key written in (include_key), by id and last four characters, as History records it; null when none was. */
  key: z.object({ key_id: z.string(), key_last4: z.string() }).nullable(),
});
