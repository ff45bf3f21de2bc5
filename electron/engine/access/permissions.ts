import { ApiProblem } from '../server/problem';

export const TOKEN_PERMISSIONS = [
  'token:create',
  'token:read',
  'token:update',
  'token:delete',
  'token:search',
  'token:use',
] as const;
export const MANAGEMENT_PERMISSIONS = [
  'application:create',
  'application:read',
  'application:update',
  'application:delete',
  'proxy:create',
  'proxy:read',
  'proxy:update',
  'proxy:delete',
  'reactor:create',
  'reactor:read',
  'reactor:update',
  'reactor:delete',
  'keys:create',
  'keys:read',
  'keys:delete',
  'tenant:read',
  'tenant:update',
  'tenant:delete',
  'report:read',
  'webhook:create',
  'webhook:read',
  'webhook:update',
  'webhook:delete',
  'log:read',
] as const;
/** What the proxy asks for (both kinds); token:use stays accepted in its place (docs/api.md, Permissions and access rules). */
export const PROXY_INVOKE = 'proxy:invoke';
/** What react, react-async and results ask for; token:use stays accepted in its place (vendor-surfaces.md §0.1). */
export const REACTOR_INVOKE = 'reactor:invoke';

/** Token intents' own permissions (docs/api.md, Token intents): held or not, never per container, as an intent has none. */
export const TOKEN_INTENT_PERMISSIONS = ['token-intent:create', 'token-intent:read', 'token-intent:delete'] as const;

/** Every permission an application of some type may hold. */
export const PERMISSIONS = [...TOKEN_PERMISSIONS, PROXY_INVOKE, REACTOR_INVOKE, ...MANAGEMENT_PERMISSIONS, ...TOKEN_INTENT_PERMISSIONS] as const;

export type TokenPermission = (typeof TOKEN_PERMISSIONS)[number];
export type ManagementPermission = (typeof MANAGEMENT_PERMISSIONS)[number];
export type TokenIntentPermission = (typeof TOKEN_INTENT_PERMISSIONS)[number];
export type Permission = TokenPermission | ManagementPermission | typeof PROXY_INVOKE | typeof REACTOR_INVOKE | TokenIntentPermission;
export const APPLICATION_TYPES = ['public', 'private', 'management'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];
export type Transform = 'redact' | 'mask' | 'reveal';

/** A session rule's condition (the vendor's): the rule covers only the token whose id equals `value`. */
export interface RuleCondition {
  attribute: 'id';
  operator: 'equals';
  value: string;
}

export interface AccessRule {
  description: string;
  priority: number;
  container: string;
  transform: Transform;
  permissions: Permission[];
  /** Sessions only; the rule's container is then `/` and these decide which tokens it covers. */
  conditions?: RuleCondition[];
}

/** Which permissions each application type may hold. */
export const ALLOWED_PERMISSIONS: Record<ApplicationType, readonly string[]> = {
  private: [...TOKEN_PERMISSIONS, PROXY_INVOKE, REACTOR_INVOKE, ...TOKEN_INTENT_PERMISSIONS],
  public: ['token:create', 'token:update', 'token-intent:create'],
  management: MANAGEMENT_PERMISSIONS,
};

/** The application type that may hold all of `permissions` (private before the others); null when none may. */
export function applicationTypeHolding(permissions: readonly string[]): ApplicationType | null {
  return (['private', 'management', 'public'] as const).find((type) => permissions.every((p) => ALLOWED_PERMISSIONS[type].includes(p))) ?? null;
}

/** GET /permissions: each permission an application may hold, worded and ordered as the vendor's permissions page. */
const DESCRIPTIONS: Record<Permission, string> = {
  'token:create': 'Create Tokens',
  'token:update': 'Update Tokens',
  'token:read': 'Read Tokens',
  'token:search': 'Search Tokens',
  'token:delete': 'Delete Tokens',
  'token:use': 'Use Tokens in the Proxy',
  [PROXY_INVOKE]: 'Invoke Proxies',
  [REACTOR_INVOKE]: 'Invoke Reactors',
  'application:read': 'Read Applications',
  'application:create': 'Create Applications',
  'application:update': 'Update and regenerate API keys for Applications',
  'application:delete': 'Delete Applications',
  'proxy:read': 'Read Proxies',
  'proxy:create': 'Create Proxies',
  'proxy:update': 'Update Proxies',
  'proxy:delete': 'Delete Proxies',
  'reactor:read': 'Read Reactors',
  'reactor:create': 'Create Reactors',
  'reactor:update': 'Update Reactors',
  'reactor:delete': 'Delete Reactors',
  'keys:create': 'Create Client Encryption Keys',
  'keys:read': 'Read Client Encryption Keys',
  'keys:delete': 'Delete Client Encryption Keys',
  'token-intent:create': 'Create Token Intents',
  'token-intent:read': 'Read Token Intents',
  'token-intent:delete': 'Delete Token Intents',
  'tenant:read': 'Read Tenants',
  'tenant:update': 'Update Tenants',
  'tenant:delete': 'Delete Tenants',
  'report:read': 'Read reports',
  'webhook:read': 'Read Webhooks',
  'webhook:create': 'Create Webhooks',
  'webhook:update': 'Update Webhooks',
  'webhook:delete': 'Delete Webhooks',
  'log:read': 'Read audit logs',
};

/** A permission as stored: the vendor's page also spells the webhook ones `webhooks:`, which is read as `webhook:`. */
export const canonicalPermission = (name: string): string => name.replace(/^webhooks:/, 'webhook:');

export interface PermissionInfo {
  type: string;
  description: string;
  application_types: ApplicationType[];
}

/** The permissions `type` may hold (all when undefined). */
export function listPermissions(type?: ApplicationType): PermissionInfo[] {
  return Object.entries(DESCRIPTIONS)
    .map(([permission, description]) => ({
      type: permission,
      description,
      application_types: APPLICATION_TYPES.filter((t) => ALLOWED_PERMISSIONS[t].includes(permission)),
    }))
    .filter((info) => type === undefined || info.application_types.includes(type));
}

export interface AccessSubject {
  id: string;
  type: ApplicationType;
  permissions: readonly string[];
  rules: readonly AccessRule[];
}

/** The permissions that use tokens (reveal them to the proxy or a reactor's code). */
const USES: ReadonlySet<string> = new Set(['token:use', PROXY_INVOKE, REACTOR_INVOKE]);

/**
 * Bare permissions behave like a rule on `/` that masks everything except use, which reveals (docs/api.md,
 * Permissions and access rules).
 */
function implicitRules(subject: AccessSubject): AccessRule[] {
  const maskOnly = subject.permissions.filter((p) => !USES.has(p)) as Permission[];
  const use = subject.permissions.filter((p) => USES.has(p)) as Permission[];
  const rules: AccessRule[] = [];
  if (maskOnly.length) rules.push({ description: 'permissions', priority: Infinity, container: '/', transform: 'mask', permissions: maskOnly });
  if (use.length) rules.push({ description: 'permissions', priority: Infinity, container: '/', transform: 'reveal', permissions: use });
  return rules;
}

/** proxy:invoke grants what token:use does in the proxy; reactor:invoke is granted by token:use too (legacy). */
const grants = (rule: AccessRule, permission: Permission) =>
  rule.permissions.includes(permission) ||
  (permission === 'token:use' && rule.permissions.includes(PROXY_INVOKE)) ||
  (permission === REACTOR_INVOKE && rule.permissions.includes('token:use'));

const covers = (ruleContainer: string, tokenContainer: string) => tokenContainer.startsWith(ruleContainer);

/** Whether a rule's conditions hold for a token: a conditioned rule covers nothing when the token's id is not known. */
const conditionsHold = (rule: AccessRule, tokenId: string | undefined) =>
  !rule.conditions?.length || (tokenId !== undefined && rule.conditions.every((c) => c.value === tokenId));

/** The first of `rules` (in the order they are tried) that covers the container (and the token, for a conditioned rule). */
const ruleFor = (rules: readonly AccessRule[], container: string, tokenId?: string) =>
  rules.find((r) => covers(r.container, container) && conditionsHold(r, tokenId));

/** How an application's rules decide one permission on one token. */
export interface AccessDecision {
  /** null: refused. */
  transform: Transform | null;
  /** The rule whose transform applies (the strictest among the token's containers); null when refused. */
  rule: AccessRule | null;
  /** When refused: the token's container that no rule granting the permission covers. */
  uncovered: string | null;
}

/** Which rule decides a permission on one container; undefined when none grants it there. */
export interface ContainerDecision {
  container: string;
  rule: AccessRule | undefined;
  /** The rule stands for the application's bare permissions (no access rule of its own). */
  bare: boolean;
}

/** Lower shows less. */
const TRANSFORM_RANK: Record<Transform, number> = { redact: 0, mask: 1, reveal: 2 };

/**
 * Rules compiled once per application: tried in ascending priority, the first rule that covers the token's container
 * and grants the permission decides the transform. Rules that do not grant the permission are passed over, as the
 * vendor does: its access-control guide puts a create-only rule on `/` before the read rules that must still decide.
 */
export class AccessPolicy {
  private readonly rules: AccessRule[];
  /** The rules that stand for bare permissions. */
  private readonly bare: ReadonlySet<AccessRule>;
  /** Per permission, the rules granting it, in order: the proxy asks for each token of every request. */
  private readonly granting = new Map<Permission, readonly AccessRule[]>();

  constructor(readonly subject: AccessSubject) {
    const bare = implicitRules(subject);
    this.bare = new Set(bare);
    this.rules = [...subject.rules].sort((a, b) => a.priority - b.priority).concat(bare);
  }

  /**
   * The transform for one token, or null when the application may not do this to it. A token in several containers
   * needs the permission on every one of them, and gets the most restrictive of their transforms: otherwise a rule on
   * `/general/` would open a token that is also in `/pci/high/`.
   * @param bareTransform what a bare permission gives here instead of its usual transform (see require)
   * @param tokenId the token's id, which a session's conditioned rules need to cover it
   */
  transformFor(permission: Permission, containers: readonly string[], bareTransform?: Transform, tokenId?: string): Transform | null {
    return this.decide(permission, containers, bareTransform, tokenId).transform;
  }

  /** transformFor, with the rule that decided it, or the container that no rule granting the permission covers. */
  decide(permission: Permission, containers: readonly string[], bareTransform?: Transform, tokenId?: string): AccessDecision {
    const rules = this.rulesGranting(permission);
    let strictest: Transform | null = null;
    let deciding: AccessRule | null = null;
    for (const container of containers) {
      const rule = ruleFor(rules, container, tokenId);
      if (!rule) return { transform: null, rule: null, uncovered: container };
      const transform = bareTransform !== undefined && this.bare.has(rule) ? bareTransform : rule.transform;
      if (strictest === null || TRANSFORM_RANK[transform] < TRANSFORM_RANK[strictest]) {
        strictest = transform;
        deciding = rule;
      }
    }
    return { transform: strictest, rule: deciding, uncovered: null };
  }

  /** Whether a rule stands for the application's bare permissions rather than one of its access rules. */
  isBarePermissions(rule: AccessRule): boolean {
    return this.bare.has(rule);
  }

  /**
   * Like transformFor, but a refusal is the 403 the client sees. `bareTransform` is for the one endpoint whose
   * documented permission names a transform of its own: POST /detokenize is "token:read (reveal)", so a bare token:read
   * reveals there, while an access rule's transform still decides for the containers it covers.
   */
  require(permission: Permission, containers: readonly string[], bareTransform?: Transform, tokenId?: string): Transform {
    const transform = this.transformFor(permission, containers, bareTransform, tokenId);
    if (transform === null) {
      throw new ApiProblem(403, `The application lacks ${permission} on container ${containers.join(', ')}`);
    }
    return transform;
  }

  /** Why transformFor decides as it does: per container, the rule that decides (the workbench's "read as"). */
  explain(permission: Permission, containers: readonly string[]): ContainerDecision[] {
    const rules = this.rulesGranting(permission);
    return containers.map((container) => {
      const rule = ruleFor(rules, container);
      return { container, rule, bare: rule !== undefined && this.bare.has(rule) };
    });
  }

  /** Whether the application holds the permission on any container at all (for endpoints that filter). */
  has(permission: Permission): boolean {
    return this.rulesGranting(permission).length > 0;
  }

  /**
   * Container prefixes on which the permission is granted, for filtering lists and searches in SQL. A session's
   * conditioned rule grants none: it names tokens, which lists and searches do not reach.
   */
  containerPrefixes(permission: Permission): string[] {
    return [...new Set(this.rulesGranting(permission).filter((r) => !r.conditions?.length).map((r) => r.container))];
  }

  private rulesGranting(permission: Permission): readonly AccessRule[] {
    let rules = this.granting.get(permission);
    if (!rules) this.granting.set(permission, (rules = this.rules.filter((r) => grants(r, permission))));
    return rules;
  }

  /** A permission that is held or not, whatever the container (token intents'): 403 naming it when not held. */
  requireHeld(permission: TokenIntentPermission): void {
    if (!this.has(permission)) throw new ApiProblem(403, `The application lacks ${permission}`);
  }

  requireManagement(permission: ManagementPermission): void {
    if (this.subject.type !== 'management' || !this.subject.permissions.includes(permission)) {
      throw new ApiProblem(403, `The application lacks ${permission}`);
    }
  }
}
