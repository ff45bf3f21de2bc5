import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { randomId } from './random-id';

/** What the vault answered a call the workbench made for the user: its status and its JSON body (undefined when empty). */
export interface VaultAnswer {
  status: number;
  body: unknown;
}

const decode = (base64: string) => new TextDecoder().decode(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)));

/**
 * Calls one of the vault's own endpoints as an application, through the workbench's front door (sendRequest): the
 * same guards, the same history, the same answers as any client gets. A status of 400 or more rejects with the
 * problem's own words ("409 Conflict: Transaction … is not open: it is committed").
 */
export async function vaultRequest(api: WorkbenchApi, applicationId: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<VaultAnswer> {
  const exchange = await api.sendRequest({
    id: randomId(),
    application_id: applicationId,
    method,
    path,
    headers: body === undefined ? [] : [['Content-Type', 'application/json']],
    body: body === undefined ? null : JSON.stringify(body),
  });
  const { outcome } = exchange;
  if (outcome.kind === 'cancelled') throw new Error(`${method} ${path} was cancelled`);
  if (outcome.kind === 'unreachable') throw new Error(`${method} ${path} did not reach the service: ${outcome.detail}`);
  const text = decode(outcome.body_base64);
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (outcome.status < 400) return { status: outcome.status, body: parsed };
  const detail = (parsed as { detail?: unknown } | undefined)?.detail;
  throw new Error(`${outcome.status} ${outcome.status_text}: ${typeof detail === 'string' ? detail : `${method} ${path} failed`}`);
}
