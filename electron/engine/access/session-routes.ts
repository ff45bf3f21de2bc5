import { causeOf } from '../server/event-cause';
import { z } from 'zod';
import type { Route } from '../server/route-types';
import { ApiProblem } from '../server/problem';
import { futureInstant, parseWith } from '../server/validation';
import { accessRule } from './application-requests';
import type { Caller } from './authenticator';
import { normalizeContainer } from './containers';
import { ALLOWED_PERMISSIONS, type AccessRule, type Permission } from './permissions';
import type { SessionStore } from './session-store';

const EXPIRY = 'expires_at must be an ISO 8601 date and time in the future';

/** The vendor's one documented condition: the rule covers the token of that id. */
const condition = z.object({
  attribute: z.literal('id', { error: 'A condition\'s attribute must be id: Tokenbench knows no other' }),
  operator: z.literal('equals', { error: 'A condition\'s operator must be equals: Tokenbench knows no other' }),
  value: z.string({ error: 'A condition\'s value must be a token id' }).min(1, { error: 'A condition\'s value must be a token id' }),
});

/**
 * A session's rule: an application's, or one whose conditions name tokens instead of a container (the vendor's
 * sessions guide grants one token so). The two are exclusive, as the vendor's access-control docs say.
 */
const sessionRule = accessRule
  .extend({ container: accessRule.shape.container.optional(), conditions: z.array(condition).nullish() })
  .superRefine((rule, ctx) => {
    const conditioned = (rule.conditions?.length ?? 0) > 0;
    if (conditioned === (rule.container !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'A session rule has a container or conditions, one of the two' });
    }
  })
  .transform(({ conditions, container, ...rule }) => {
    const stored = { ...rule, permissions: rule.permissions as Permission[] };
    return (conditions?.length ? { ...stored, container: '/', conditions } : { ...stored, container: normalizeContainer(container!) }) satisfies AccessRule;
  });

/** POST /sessions/authorize: the vendor's fields; what is granted must be what a private application may hold. */
const authorizeRequest = z
  .object({
    nonce: z.string({ error: 'nonce is required' }).min(1, { error: 'nonce is required' }),
    permissions: z.array(z.string()).nullish().transform((list) => list ?? []),
    rules: z.array(sessionRule).nullish().transform((list) => list ?? []),
    expires_at: futureInstant(EXPIRY, () => null),
  })
  .superRefine((grant, ctx) => {
    if (grant.permissions.length === 0 && grant.rules.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['permissions'], message: 'Either permissions or rules must be non-empty: a session is authorized to do something' });
    }
    const check = (permission: string, path: (string | number)[]) => {
      if (!ALLOWED_PERMISSIONS.private.includes(permission)) {
        ctx.addIssue({ code: 'custom', path, message: `${permission} is not a permission a session can hold (it holds those of a private application)` });
      }
    };
    grant.permissions.forEach((p, i) => check(p, ['permissions', i]));
    grant.rules.forEach((r, i) => r.permissions.forEach((p, j) => check(p, ['rules', i, 'permissions', j])));
  });

/** Sessions are made and authorized by applications' own keys, never by another session's. */
function requireApplicationOfType(caller: Caller, type: 'public' | 'private', doing: string): void {
  if (caller.session) throw new ApiProblem(403, `A session cannot ${doing}: use a ${type} application's key`);
  if (caller.application.type !== type) {
    throw new ApiProblem(403, `Sessions are ${doing === 'create sessions' ? 'created by a public application (a front end)' : 'authorized by a private application (a back end)'}; this key belongs to a ${caller.application.type} application`);
  }
}

/** History shows a one-time code as it shows a key: by its last four characters. */
const hint = (secret: string) => `...${secret.slice(-4)}`;

/** Sessions (docs/api.md, Sessions): a public application makes one, a private one authorizes it by its nonce. */
export function sessionRoutes(sessions: SessionStore): Route[] {
  return [
    {
      method: 'POST',
      path: '/sessions',
      idempotent: true,
      handler: async (ctx) => {
        requireApplicationOfType(ctx.caller, 'public', 'create sessions');
        const { id, ...created } = await sessions.create(ctx.caller.application.id, causeOf(ctx));
        ctx.log.details = { session: id, session_expires_at: created.expires_at };
        return { status: 201, body: created };
      },
    },
    {
      method: 'POST',
      path: '/sessions/authorize',
      idempotent: true,
      handler: async (ctx) => {
        requireApplicationOfType(ctx.caller, 'private', 'authorize sessions');
        const body = await ctx.json();
        const input = parseWith(authorizeRequest, body);
        ctx.log.requestBody = { ...input, nonce: hint(input.nonce) };
        // A key grants no more than it holds itself: a session is a way to lend access, not to make it.
        for (const permission of new Set([...input.permissions, ...input.rules.flatMap((r) => r.permissions)])) {
          if (!ctx.caller.policy.has(permission as Permission)) throw new ApiProblem(403, `The application lacks ${permission}, so it cannot grant it to a session`);
        }
        const grant = await sessions.authorize(input.nonce, input, ctx.caller.application.id, causeOf(ctx));
        ctx.log.details = { session: grant.id, session_expires_at: grant.expires_at };
        return { status: 204 };
      },
    },
  ];
}
