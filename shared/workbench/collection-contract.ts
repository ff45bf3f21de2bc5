import { z } from 'zod';
import { movedAsideSchema } from './secret-contract';

/** Saved requests: the shape a collection keeps one in, the folder's collections, where one is, and what an import reads. */

/** The methods a composed request may use. */
export const COMPOSER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A request as the Composer holds it and a collection keeps it (one readable file each): what the user wrote, not the
 * bytes it becomes (see the page's wire-request.ts), so a saved request opens again exactly as it was composed.
 */
export const savedRequestSchema = z.strictObject({
  /** Through the proxy to a destination, or straight to the vault's own API. */
  kind: z.enum(['proxy', 'api']),
  method: z.enum(COMPOSER_METHODS),
  /**
   * Through the proxy: the destination URL (`https://api.example.com/v1/charges?x=1`), or with `proxy` the path after
   * /proxy (`/v1/charges?x=1`). Vault API: the path (`/tokens`).
   */
  target: z.string().max(16 * 1024),
  /** Through a pre-configured proxy, by its name: names travel with the file, ids differ from one vault to the next. */
  proxy: z.string().trim().min(1).max(200).optional(),
  /** A row switched off stays in the table and is not sent. */
  headers: z.array(z.strictObject({ name: z.string().max(1024), value: z.string().max(16 * 1024), enabled: z.boolean() })).max(200),
  /** The service's own headers, as the Composer's named fields. */
  service: z.strictObject({ transaction: z.string(), trace: z.string(), keepAlive: z.string(), connection: z.string() }),
  bodyMode: z.enum(['json', 'form', 'text', 'xml', 'none']),
  body: z.string().max(1024 * 1024),
});
export type SavedRequest = z.output<typeof savedRequestSchema>;

/** The application a saved request is sent as, by name: ids differ from one vault to the next, names travel with the file. */
export const sendAsSchema = z.string().trim().min(1).max(200);

const collectionNameSchema = z.string().min(1).max(100);

/** Every collection in the folder and its requests; a file that is not a saved request is listed with why. */
export const collectionsViewSchema = z.object({
  folder: z.string(),
  collections: z.array(
    z.object({
      name: z.string(),
      requests: z.array(
        z.object({
          name: z.string(),
          request: savedRequestSchema.nullable(),
          problem: z.string().nullable(),
          /**
           * The headers whose file holds a credential in plain text (one written before Secrets, or by hand): the next
           * save moves each into Secrets. Filled in by the workbench, not the folder's reader.
           */
          secrets_in_plain_text: z.array(z.string()).optional(),
          /**
           * The application the file says to send it as, by name, and the one of that name here (null: none has it,
           * and the Composer says so). Absent when the file names none.
           */
          send_as: z.object({ name: z.string(), application_id: z.string().nullable() }).nullable().optional(),
        }),
      ),
    }),
  ),
});
export type CollectionsView = z.output<typeof collectionsViewSchema>;

/** The collections once a request is saved, and the credentials its save moved into Secrets. */
export const savedRequestsSchema = collectionsViewSchema.extend({ moved_aside: z.array(movedAsideSchema) });

/** What the user pasted to import: a cURL command or a HAR (a whole file, one entry, or one request). */
export const importRequestSchema = z.strictObject({ text: z.string().max(8 * 1024 * 1024) });

/** The requests read from a paste, each as the Composer holds one, with what changed on the way. */
export const importedRequestsSchema = z.object({
  format: z.enum(['curl', 'har']),
  requests: z.array(
    z.object({
      label: z.string(),
      request: savedRequestSchema,
      notes: z.array(z.string()),
      /** The credentials moved into Secrets, which the request now refers to by name. */
      moved_aside: z.array(movedAsideSchema),
    }),
  ),
  /** A HAR with more requests than the Composer lists: how many were left out. */
  left_out: z.number().int().positive().optional(),
});
export type ImportedRequests = z.output<typeof importedRequestsSchema>;

/** Where a saved request is: its collection and its name. */
export const requestPlaceSchema = z.strictObject({ collection: collectionNameSchema, name: collectionNameSchema });
