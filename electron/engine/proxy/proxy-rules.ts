/** The proxy's rules for a request, which the proxy route and the workbench's checks both apply. */
import type { Caller } from '../access/authenticator';
import { type ExpressionEngine, type ExpressionError, HOSTED_EXPRESSION_LIMIT } from '../expressions';
import { ApiProblem } from '../server/problem';
import type { CompatibilityWarning } from './compatibility';

/** Only a private application may detokenize, and it needs token:use even when the body uses no token. */
export function requireProxyCaller(caller: Caller): void {
  const { application, policy } = caller;
  if (application.type !== 'private') {
    throw new ApiProblem(403, `The proxy takes a private application key; this key belongs to a ${application.type} application`);
  }
  if (!policy.has('token:use')) throw new ApiProblem(403, 'The application lacks token:use (or proxy:invoke)');
}

/** Past the hosted service's limit of expressions per request, which this engine may be set to exceed. */
export function hostedLimitWarning(count: number): CompatibilityWarning | null {
  if (count <= HOSTED_EXPRESSION_LIMIT) return null;
  return { message: `${count} expressions; the hosted service detokenizes at most ${HOSTED_EXPRESSION_LIMIT} per request` };
}

/** A 400 when a body holds more expressions than the engine detokenizes per request; a warning past the hosted limit. */
export function checkExpressionCount(count: number, expressions: ExpressionEngine): CompatibilityWarning | null {
  expressions.checkExpressionCount(count);
  return hostedLimitWarning(count);
}

/** A header's proxy expression that does not parse or evaluate: the 400 names the header. */
export const headerExpressionProblem = (name: string, error: ExpressionError): ApiProblem => new ApiProblem(400, `Header ${name}: ${error.detail ?? error.message}`);
