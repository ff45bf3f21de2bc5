import type { FlagPlace, RequestCheck, RequestFlag, RequestToCheck } from '../../../shared/workbench/composer-contract';
import { placeOf, resolveReferences, type ActiveVariables, type ReferencePlace, type Unresolved } from '../environments/resolve-references';
import type { RequestChecks } from '../proxy/proxy-check';
import type { SecretStore } from '../secrets/secret-store';
import type { AnyUnitRunner } from '../storage/unit';

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The checks of a composed request with its references put in as sending would (secret values aside: a check never
 * needs one), so the proxy's checks see the destination and the token ids the request will carry; each reference that
 * cannot be put in is an error flag naming it and the environment. Flags and expressions in the body point into the
 * body as written.
 */
export async function checkWithReferences(
  checks: RequestChecks<AnyUnitRunner>,
  request: RequestToCheck,
  active: ActiveVariables,
  secrets: SecretStore,
  headerPrefix: string,
): Promise<RequestCheck> {
  const resolved = resolveReferences(request, active, secrets, 'check');
  const checked = await checks.check({ ...request, path: resolved.path, headers: resolved.headers, body: resolved.body });
  const inBody = (at: FlagPlace): FlagPlace => (at.part === 'body' ? { ...at, from: resolved.bodyOffset(at.from), to: resolved.bodyOffset(at.to) } : at);
  // The destination URL's origin travels in the proxy URL header: the Composer shows it in its URL field.
  const proxyUrl = `${headerPrefix}-PROXY-URL`.toLowerCase();
  const inUrl = (at: ReferencePlace) => at.part === 'header' && at.name.toLowerCase() === proxyUrl;
  const flag = (missing: Unresolved): RequestFlag => ({
    severity: 'error',
    kind: 'unresolved_reference',
    at: inUrl(missing.at) ? { part: 'path' } : missing.at,
    message: `${missing.problem}: ${missing.reference} in ${inUrl(missing.at) ? 'the destination URL' : placeOf(missing.at)} cannot be put in, so the request is not sent`,
    advice: `${sentence(missing.fix)}.`,
  });
  return {
    ...checked,
    flags: [...resolved.unresolved.map(flag), ...checked.flags.map((f) => ({ ...f, at: inBody(f.at) }))],
    expressions: checked.expressions.map((e) => ({ ...e, from: resolved.bodyOffset(e.from), to: resolved.bodyOffset(e.to) })),
  };
}
