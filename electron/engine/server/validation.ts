import { z } from 'zod';
import { validationProblem } from './problem';

/** Validates a message at the HTTP boundary, once; failures become a 400 naming each offending field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, root = ''): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const path = [root, ...issue.path.map(String)].filter(Boolean).join('.') || 'body';
    (errors[path] ??= []).push(issue.message);
  }
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
