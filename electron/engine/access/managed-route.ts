import type { Handler } from '../server/route-types';
import type { ManagementPermission } from './permissions';

/** A handler that runs only for a management application holding `permission`. */
export const managed =
  (permission: ManagementPermission, handler: Handler): Handler =>
  (ctx) => {
    ctx.caller.policy.requireManagement(permission);
    return handler(ctx);
  };
