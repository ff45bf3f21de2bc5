import { z } from 'zod';
import { validationProblem } from './problem';

/**
 * How a field's path is written: `rules.0.container` (the applications' and tokens' endpoints, as documented), or with
 * indexes in brackets, `request_transforms[0].code` (the newer surfaces of the vendor).
 */
export type PathStyle = 'dots' | 'brackets';

export function fieldPath(path: readonly PropertyKey[], style: PathStyle = 'dots', root = ''): string {
  if (style === 'dots') return [root, ...path.map(String)].filter(Boolean).join('.') || 'body';
  let out = root;
  for (const step of path) out += typeof step === 'number' ? `[${step}]` : out === '' ? String(step) : `.${String(step)}`;
  return out || 'body';
}

/** Validates a message at the HTTP boundary, once; failures become a 400 naming each offending field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, root = '', style: PathStyle = 'dots'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) (errors[fieldPath(issue.path, style, root)] ??= []).push(issue.message);
  throw validationProblem(errors);
}

/**
 * A field of the vendor's API that Tokenbench does not implement: absent or null passes, anything else is a 400 that
 * names it and says `why`, never a value dropped silently.
 */
export const unsupported = (why: string) =>
  z
    .unknown()
    .refine((value) => value === null || value === undefined, { error: why })
    .optional();

/**
 * An ISO 8601 date and time (`2030-01-01T00:00:00Z`) in the future, at most `maxMs` away, as the UTC instant it names;
 * absent or null is `fallback()`. Anything else is an issue worded `message`.
 */
export const futureInstant = <F extends string | null>(message: string, fallback: () => F, maxMs = Number.POSITIVE_INFINITY) =>
  z
    .string({ error: message })
    .nullish()
    .transform((text, ctx): string | F => {
      if (text === null || text === undefined) return fallback();
      const ms = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
      const now = Date.now();
      if (ms > now && ms - now <= maxMs) return new Date(ms).toISOString();
      ctx.issues.push({ code: 'custom', message, input: text });
      return z.NEVER;
    });
