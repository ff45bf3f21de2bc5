import { z } from 'zod';
import { unsupported } from '../server/validation';
import { validateContainer, normalizeContainer } from './containers';
import { ALLOWED_PERMISSIONS, APPLICATION_TYPES, canonicalPermission, type AccessRule, type ApplicationType } from './permissions';

/** An access rule, as applications and session authorizations take it. */
export const accessRule = z.object({
  description: z.string().max(500).default(''),
  priority: z.number().int(),
  container: z.string().superRefine((c, ctx) => {
    const problem = validateContainer(c);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  transform: z.enum(['redact', 'mask', 'reveal']),
  permissions: z.array(z.string()).min(1),
  conditions: z
    .array(z.unknown())
    .max(0, { error: 'Access-rule conditions apply to sessions only (POST /sessions/authorize): scope an application\'s rule by container, and leave conditions out or empty' })
    .nullish(),
});

/** What create and update share: the vendor's update takes exactly these (docs/api.md, Applications and keys). */
const applicationFields = {
  name: z.string().trim().min(1, 'name is required').max(200),
  permissions: z.array(z.string().transform(canonicalPermission)).default([]),
  rules: z.array(accessRule).default([]),
};

type Fields = { type: ApplicationType; permissions: string[]; rules: z.infer<typeof accessRule>[] };

/** Permissions must suit the application type. */
function checkSuitsType(app: Fields, ctx: z.RefinementCtx): void {
  const allowed = ALLOWED_PERMISSIONS[app.type];
  const check = (permission: string, path: (string | number)[]) => {
    if (!allowed.includes(permission)) {
      ctx.addIssue({ code: 'custom', path, message: `${permission} is not a permission a ${app.type} application can hold` });
    }
  };
  app.permissions.forEach((p, i) => check(p, ['permissions', i]));
  app.rules.forEach((r, i) => r.permissions.forEach((p, j) => check(p, ['rules', i, 'permissions', j])));
  if (app.type === 'management' && app.rules.length > 0) {
    ctx.addIssue({ code: 'custom', path: ['rules'], message: 'Management applications take permissions, not access rules' });
  }
}

const withStoredContainers = <A extends Fields>(app: A) => ({
  ...app,
  rules: app.rules.map(({ conditions: _none, ...r }) => ({ ...r, container: normalizeContainer(r.container) }) as AccessRule),
});

/** POST /applications (and seed files). */
export const applicationRequest = z
  .object({
    ...applicationFields,
    type: z.enum(APPLICATION_TYPES),
    create_key: z.boolean().default(true),
    expires_at: unsupported('Applications do not expire in Tokenbench: leave expires_at out and delete the application when done'),
  })
  .superRefine(checkSuitsType)
  .transform(withStoredContainers);
export type ApplicationRequest = z.infer<typeof applicationRequest>;

/**
 * PUT /applications/{id} for an application of `type`. Neither vendor SDK sends a type, as it cannot change: one sent
 * back unchanged is fine, another is refused.
 */
export function applicationUpdateRequest(type: ApplicationType) {
  return z
    .object({ ...applicationFields, type: z.literal(type, { error: "An application's type cannot change" }).default(type) })
    .superRefine(checkSuitsType)
    .transform(withStoredContainers);
}

/** GET /permissions */
export const permissionsQuery = z.object({
  application_type: z.enum(APPLICATION_TYPES, { error: `application_type must be one of ${APPLICATION_TYPES.join(', ')}` }).optional(),
});

const CURSOR_PAGING = 'start (cursor paging) is not supported here: this list pages by page and size';

/** GET /applications; `id` and `type` repeat, so the route reads them from the query itself. */
export const applicationListQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(100).default(20),
  start: unsupported(CURSOR_PAGING),
});

/** GET /applications/{id}/keys; `id` repeats, so the route reads it from the query itself. */
export const applicationKeysQuery = z.object({
  type: unsupported('Tokenbench does not filter application keys by type'),
});
