import { z } from 'zod';
import { validateContainer, normalizeContainer } from './containers';
import { ALLOWED_PERMISSIONS, type AccessRule } from './permissions';

const rule = z.object({
  description: z.string().max(500).default(''),
  priority: z.number().int(),
  container: z.string().superRefine((c, ctx) => {
    const problem = validateContainer(c);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  transform: z.enum(['redact', 'mask', 'reveal']),
  permissions: z.array(z.string()).min(1),
});

/** POST /applications and PUT /applications/{id}: permissions must suit the application type (wire contract §2). */
export const applicationRequest = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(200),
    type: z.enum(['private', 'public', 'management']),
    permissions: z.array(z.string()).default([]),
    rules: z.array(rule).default([]),
    create_key: z.boolean().default(true),
  })
  .superRefine((app, ctx) => {
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
  })
  .transform((app) => ({
    ...app,
    rules: app.rules.map((r) => ({ ...r, container: normalizeContainer(r.container) }) as AccessRule),
  }));
export type ApplicationRequest = z.infer<typeof applicationRequest>;
