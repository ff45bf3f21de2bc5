import { z } from 'zod';
import { TENANT_SETTINGS, type TenantSettingName, type TenantSettingsMap } from '../../../shared/workbench/tenant-contract';
import type { TokenDefaults } from '../vault/token-service';

/** The settings a PUT set; a key left out is at its default. */
export type TenantSettings = Partial<Record<TenantSettingName, string>>;

const NAMES = Object.keys(TENANT_SETTINGS) as TenantSettingName[];
const isName = (key: string): key is TenantSettingName => Object.hasOwn(TENANT_SETTINGS, key);
const listed = (values: readonly string[]) => values.map((v) => `"${v}"`).join(' or ');

/** A PUT's `settings`: every key known and every value one its key takes, each refusal naming its key. */
export const tenantSettingsSchema = z.record(z.string(), z.unknown(), { error: 'settings must be an object of strings' }).transform((map, ctx): TenantSettings => {
  const settings: TenantSettings = {};
  for (const [key, value] of Object.entries(map)) {
    if (!isName(key)) {
      ctx.issues.push({ code: 'custom', path: [key], message: `Unknown setting: the settings are ${NAMES.join(', ')}`, input: key });
    } else if (typeof value !== 'string' || !(TENANT_SETTINGS[key] as readonly string[]).includes(value)) {
      ctx.issues.push({ code: 'custom', path: [key], message: `${key} must be ${listed(TENANT_SETTINGS[key])}`, input: value });
    } else {
      settings[key] = value;
    }
  }
  return settings;
});

/** Every setting with its value: what the API answers. */
export function settingsMap(settings: TenantSettings): TenantSettingsMap {
  return Object.fromEntries(NAMES.map((name) => [name, settings[name] ?? TENANT_SETTINGS[name][0]])) as TenantSettingsMap;
}

/** What the settings decide, read by the vault and the proxy at each request. */
export interface TenantRules extends TokenDefaults {
  /** `/proxy` without a proxy key is allowed. */
  ephemeralProxy: boolean;
}

export function rulesOf(settings: TenantSettings): TenantRules {
  const map = settingsMap(settings);
  return {
    deduplicate: map.deduplicate_tokens === 'true',
    updateDuplicate: map.token_deduplication_behavior === 'update_existing',
    fingerprint: map.fingerprint_tokens === 'true',
    ephemeralProxy: map.disable_ephemeral_proxy === 'false',
  };
}
