import type { Request, SentReply } from '../../../shared/workbench/methods';
import type { AccessDecision } from '../../../shared/workbench/token-contract';
import { applicationUpdateRequest } from '../access/application-requests';
import type { Application } from '../access/application-store';
import { AccessPolicy, TOKEN_PERMISSIONS, type TokenPermission, type Transform } from '../access/permissions';
import { ApiProblem } from '../server/problem';
import { parseWith } from '../server/validation';
import { withoutPlaintext } from '../vault/token-service';
import type { StoredToken } from '../vault/token-store';
import { actingAs, tokenIn, type WorkbenchVault } from './acting-as';
import { stagedOperationOf } from './staged-tokens';

/** How many of the tokens sharing a fingerprint the detail lists; it counts them all. */
const SAME_FINGERPRINT_SHOWN = 20;

const TRANSFORM_WORDS: Record<Transform, string> = { mask: 'masked', reveal: 'plaintext', redact: 'redacted (no data)' };

/**
 * One token as the acting application reads it (GET /tokens/{id}'s token:read rules), inside a transaction when one
 * is named, with what open transactions hold on it and the tokens that share its fingerprint. Data never in plaintext.
 */
export async function tokenDetail(vault: WorkbenchVault, request: Request<'getToken'>): Promise<SentReply<'getToken'>> {
  const caller = actingAs(vault, request.application_id);
  const token = await tokenIn(vault, request.token_id, request.transaction_id);
  const transform = caller.policy.require('token:read', token.containers);
  const committed = (id: string) => vault.tokens.store.get(id);
  const sameFingerprint = { type: token.type, fingerprint: token.fingerprint ?? undefined };
  return {
    token: vault.tokens.view(token, withoutPlaintext(transform)),
    read_transform: transform,
    staged: await stagedOperationOf(vault.transactions, committed, token.id, request.transaction_id),
    same_fingerprint: token.fingerprint
      ? {
          total: await vault.queries.count(caller, 'token:read', sameFingerprint),
          tokens: (await vault.queries.pageNewest(caller, 'token:read', sameFingerprint, undefined, SAME_FINGERPRINT_SHOWN)).data,
        }
      : { total: 0, tokens: [] },
  };
}

/** The application's access rules, or a draft of them (validated as PUT /applications/{id} would take them). */
function policyOf(application: Application, draft: Request<'readTokenAs'>['draft']): AccessPolicy {
  if (!draft) return new AccessPolicy(application);
  const { permissions, rules } = parseWith(applicationUpdateRequest(application.type), { name: application.name, ...draft }, 'draft');
  return new AccessPolicy({ id: application.id, type: application.type, permissions, rules });
}

/** How the rules decide one permission on the token, and why, in a sentence. */
function decide(policy: AccessPolicy, permission: TokenPermission, token: StoredToken): AccessDecision {
  const containers = policy.explain(permission, token.containers).map(({ container, rule, bare }) => ({
    container,
    // A bare permission's stand-in rule is not the application's; its priority (Infinity) has no JSON either.
    rule: rule && !bare ? { ...rule } : null,
    bare,
  }));
  const transform = policy.transformFor(permission, token.containers);
  const refused = containers.find(({ rule, bare }) => rule === null && !bare);
  if (transform === null || refused) {
    const where = refused?.container ?? token.containers.join(', ');
    return { permission, transform: null, containers, reason: `Refused: no access rule grants ${permission} on ${where}, nor do the application's own permissions.` };
  }
  const why = containers.map(({ container, rule }) =>
    rule ? `${container} by rule “${rule.description || 'unnamed'}” (priority ${rule.priority}, on ${rule.container})` : `${container} by the application's own permissions`,
  );
  const strictest = containers.length > 1 ? ' (the strictest of its containers)' : '';
  return { permission, transform, containers, reason: `Allowed, ${TRANSFORM_WORDS[transform]}${strictest}: ${why.join('; ')}.` };
}

/** The proxy's own condition beside the rules: it takes private applications only (docs/api.md, Proxy). */
function decideUse(policy: AccessPolicy, application: Application, token: StoredToken): AccessDecision {
  const decision = decide(policy, 'token:use', token);
  if (application.type === 'private') return decision;
  return { ...decision, transform: null, reason: `Refused: the proxy takes private applications only; this one is ${application.type}.` };
}

/**
 * What an application would get of a token under its access rules, or under a draft of them (the Settings page's
 * preview): the read with its data when that is masked (plaintext is said, never sent), whether the proxy would use
 * the token for it, and the other permissions. The same policy code as the wire API decides.
 */
export async function readTokenAs(vault: WorkbenchVault, request: Request<'readTokenAs'>): Promise<SentReply<'readTokenAs'>> {
  const { application } = actingAs(vault, request.application_id);
  const policy = policyOf(application, request.draft);
  const token = await tokenIn(vault, request.token_id, request.transaction_id);
  const read = decide(policy, 'token:read', token);
  return {
    application: { id: application.id, name: application.name, type: application.type },
    read: read.transform === 'mask' ? { ...read, data: vault.tokens.view(token, 'mask').data } : read,
    use: decideUse(policy, application, token),
    others: TOKEN_PERMISSIONS.filter((p) => p !== 'token:read' && p !== 'token:use').map((permission) => decide(policy, permission, token)),
  };
}

/**
 * A token's plaintext, only as far as the acting application may read it itself: token:read as POST /detokenize
 * applies it (bare permissions reveal there, an access rule's transform decides where one covers the token), so
 * "Reveal as" shows no more than the application's own key could fetch. Where it may not, a 403 says which rule
 * decides and what to do instead.
 */
export async function revealToken(vault: WorkbenchVault, request: Request<'revealToken'>): Promise<SentReply<'revealToken'>> {
  const { application, policy } = actingAs(vault, request.application_id);
  const token = await tokenIn(vault, request.token_id, request.transaction_id);
  const { transform, rule, uncovered } = policy.decide('token:read', token.containers, 'reveal');
  if (transform === 'reveal') return { data: token.data };
  const who = `Application “${application.name}”`;
  const instead = 'Reveal it as an application whose access rules reveal it, or change these in Settings.';
  if (transform === null || rule === null) {
    throw new ApiProblem(403, `${who} may not read token ${token.id}: no access rule grants token:read on ${uncovered}, nor do its permissions. ${instead}`);
  }
  const by = policy.isBarePermissions(rule) ? 'its permissions' : `its rule “${rule.description || 'unnamed'}” (priority ${rule.priority}, on ${rule.container})`;
  throw new ApiProblem(403, `${who} reads token ${token.id} ${TRANSFORM_WORDS[transform]}, by ${by}: it may not see the plaintext, so the workbench does not show it as this application. ${instead}`);
}
