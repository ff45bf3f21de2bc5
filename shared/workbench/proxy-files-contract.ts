import { z } from 'zod';

/**
 * Proxies and reactors as files (docs/api.md, Proxies as files; Reactors as files): the proxies folder, its files'
 * state, and the export and import of proxies.
 */

const proxyRefSchema = z.object({ id: z.string(), name: z.string() });

/** A file of the proxies folder as the engine last read it. */
export const proxyFileSchema = z.object({
  /** Inside the folder, with `/` between folders. */
  path: z.string(),
  /** reactor: a `*.reactor.json` file; proxy: any other `.json` file. */
  kind: z.enum(['proxy', 'reactor']),
  /** loaded: the file as it is serves; error: it does not (its last good version does, when `served` is set). */
  state: z.enum(['loaded', 'error']),
  /** The proxy or reactor served from the file; null: none. */
  served: proxyRefSchema.nullable(),
  /** Each `field: message`. */
  problems: z.array(z.string()),
  warnings: z.array(z.string()),
  /** When the file was last read as it is now (ISO 8601). */
  at: z.string(),
});
export type ProxyFile = z.infer<typeof proxyFileSchema>;

export const proxyFilesViewSchema = z.object({
  /** The folder proxies and reactors are loaded from; null: none. */
  folder: z.string().nullable(),
  /** The folder chosen in Settings; null: none. */
  stored: z.string().nullable(),
  /** `--proxies DIR` given at start, which wins over Settings; null: none. */
  pinnedBy: z.string().nullable(),
  files: z.array(proxyFileSchema),
  /** The proxies made through the API or the page, which an export can move into the folder. */
  exportable: z.array(proxyRefSchema),
});
export type ProxyFilesView = z.infer<typeof proxyFilesViewSchema>;

export const proxiesFolderChangeSchema = z.strictObject({ folder: z.string().trim().min(1).max(4096).nullable() });

/** A proxy file's name in the folder, without `.json`: `charge`, `payments.charge`. */
const fileBaseSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'a file name is 1 to 100 letters, digits, dots, dashes and underscores, starting with a letter or digit')
  .transform((name) => name.replace(/\.json$/i, ''));

export const proxyExportSchema = z.strictObject({
  id: z.string().min(1).max(100),
  /** Default: made from the proxy's name. */
  file: fileBaseSchema.optional(),
  /** Configuration keys whose values go to Secrets besides those named like credentials (`API_KEY`, `secret`). */
  secret_keys: z.array(z.string().max(100)).max(25).default([]),
});

export const proxyImportSchema = z.strictObject({
  /** The proxy as GET /proxies/{id} of the hosted service answers it. */
  json: z.string().min(1).max(1024 * 1024),
  file: fileBaseSchema.optional(),
  secret_keys: z.array(z.string().max(100)).max(25).default([]),
});

export const proxyFilesWrittenSchema = z.object({
  /** The proxy file written, inside the folder; its code files are named in it. */
  path: z.string(),
  files: z.array(z.string()),
  id: z.string(),
  /** Whether the proxy kept the id and key it had (an export always does; an import when they are free here). */
  kept_identity: z.boolean(),
  /** Configuration values moved into Secrets, by key and the secret's name. */
  moved: z.array(z.object({ key: z.string(), secret: z.string() })),
  view: proxyFilesViewSchema,
});
