import { z } from 'zod';
import { savedRequestSchema, sendAsSchema, type SavedRequest } from '../../../shared/workbench/collection-contract';

/**
 * A saved request's file. Version 2 keeps the body as an array of its lines, so a pretty-printed JSON body changed in
 * one line changes one line of the file (a diff a reviewer can read), and names the application it is sent as. A
 * version 1 file (the request as the Composer holds it, its body one string) still reads; it becomes version 2 when
 * it is next saved.
 */


/**
 * The body as lines: split at each line feed, so joining them again gives the body exactly (a carriage return stays
 * at the end of its line, escaped). An empty body is no line at all.
 */
export const bodyLines = (body: string): string[] => (body === '' ? [] : body.split('\n'));

const requestFileV2 = z
  .strictObject({
    version: z.literal(2),
    ...savedRequestSchema.shape,
    /** The application the request is sent as, by name: ids differ from one vault to the next, names travel. */
    send_as: sendAsSchema.optional(),
    body: z.array(z.string()),
  })
  .transform(({ send_as, body, ...request }) => ({ ...request, body: body.join('\n'), send_as: send_as ?? null }))
  // The joined body is held to the same limit as a request the Composer saves.
  .pipe(savedRequestSchema.extend({ version: z.literal(2), send_as: z.string().nullable() }));

const requestFileV1 = savedRequestSchema.transform((request) => ({ ...request, version: 1 as const, send_as: null }));

/** A request file read: the request, the application it is sent as (null: none named) and the file's version. */
export interface RequestFile {
  request: SavedRequest;
  send_as: string | null;
  version: 1 | 2;
}

/**
 * Reads a request file's JSON, by its version (a file without one is version 1); what is wrong with it, field by
 * field, when it is not a saved request.
 */
export function readRequestFile(json: unknown): { file: RequestFile } | { problem: string } {
  const versioned = typeof json === 'object' && json !== null && 'version' in json;
  const parsed = (versioned ? requestFileV2 : requestFileV1).safeParse(json);
  if (!parsed.success) return { problem: parsed.error.issues.map((i) => `${i.path.join('.') || 'file'}: ${i.message}`).join('; ') };
  const { version, send_as, ...request } = parsed.data;
  return { file: { request, send_as, version } };
}

/**
 * The text of a version 2 file: readable JSON, two spaces, the body last so its lines end the file. The keys keep one
 * order, so saving an unchanged request writes the same bytes.
 */
export function requestFileText(request: SavedRequest, sendAs: string | null): string {
  const { kind, method, target, headers, service, bodyMode, body } = request;
  const file = { version: 2, kind, method, target, ...(sendAs !== null && { send_as: sendAs }), headers, service, bodyMode, body: bodyLines(body) };
  return `${JSON.stringify(file, null, 2)}\n`;
}
