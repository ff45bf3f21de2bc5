import { ENCRYPTED_KEY, type CompiledBody, type TokenRecord } from '../expressions';
import type { RequestContext } from '../server/route-types';
import { afterRun } from '../storage/unit';
import type { ExpressionRecords } from './proxy-core';
import type { ProxyExchange } from './proxy-history';

/**
 * Opens a proxy call's PFX-ENCRYPTED header (`header` names it as sent) into what the `encrypted` root of its
 * expressions reads, telling `opened` each client encryption key used; the client encryption keys feature provides it.
 */
export type OpenEncryptedHeader = (value: string, header: string, opened: (keyId: string) => void) => Promise<TokenRecord>;

/** The call's decrypted PFX-ENCRYPTED requests, or undefined when it sends none; the call's History names the keys. */
export function encryptedRoot(ctx: RequestContext, exchange: ProxyExchange, prefix: string, open: OpenEncryptedHeader): Promise<TokenRecord> | undefined {
  const value = ctx.prefixed('ENCRYPTED');
  return value === undefined ? undefined : open(value, `${prefix}-ENCRYPTED`, (keyId) => (exchange.clientEncryptionKeys ??= []).push(keyId));
}

/** The records a body's expressions read: the vault's, and `encrypted` when the call sent it. */
export function withEncrypted(records: (compiled: CompiledBody) => ExpressionRecords, encrypted: TokenRecord | undefined): (compiled: CompiledBody) => ExpressionRecords {
  if (!encrypted) return records;
  return (compiled) => afterRun(records(compiled), (found) => new Map(found).set(ENCRYPTED_KEY, encrypted));
}
