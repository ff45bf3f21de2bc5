/**
 * The bodies of POST, PUT and PATCH /reactors (vendor-surfaces.md §3.2), checked once at the boundary: a 400 whose
 * `errors` name each field (`runtime.timeout`).
 */
import { z } from 'zod';
import type { RuntimeOptions } from '../code-runtime';
import { configuration, MAX_CODE_CHARS, runtimeSchema } from '../proxies/proxy-requests';
import { validationProblem } from '../server/problem';
import { parseWith, unsupported } from '../server/validation';
import type { ReactorDefinition } from './reactor-model';

const REMOVED_FORMULAS = 'Reactor formulas were removed by the vendor on 2024-02-14: give the reactor its own code';

const reactorRequest = z
  .object({
    name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(200, 'name may hold at most 200 characters'),
    code: z.string({ error: 'code is required' }).min(1, 'code is required').max(MAX_CODE_CHARS, `code may hold at most ${MAX_CODE_CHARS} characters`),
    configuration: configuration.nullish(),
    application: z.object({ id: z.string({ error: 'application.id is required' }) }).nullish(),
    application_id: z.string().nullish(),
    runtime: runtimeSchema('reactor').nullish(),
    formula: unsupported(REMOVED_FORMULAS),
    formula_id: unsupported(REMOVED_FORMULAS),
  })
  .transform(
    (r): ReactorDefinition => ({
      name: r.name,
      code: r.code,
      configuration: r.configuration ?? {},
      application_id: r.application?.id ?? r.application_id ?? null,
      runtime: (r.runtime as RuntimeOptions | null | undefined) ?? null,
    }),
  );

export const parseReactorRequest = (body: unknown): ReactorDefinition => parseWith(reactorRequest, body);

/** A PATCH body (RFC 7386) in the stored definition's terms: `application` becomes its id before the merge. */
export function reactorPatch(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationProblem({ body: ['A merge patch is a JSON object'] });
  const { application, ...patch } = body as Record<string, unknown>;
  if (application === undefined) return patch;
  return { ...patch, application_id: application === null ? null : (application as { id?: unknown }).id };
}
