import { useState, type ReactNode } from 'react';
import type { EngineSettings } from '../../../../shared/workbench/settings-contract';
import type { TenantDetail, TenantSettingsMap } from '../../../../shared/workbench/tenant-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ColumnHeads } from '../../components/ColumnHeads';
import { formatCount, plural } from '../../components/format';
import { useSettingsStore } from '../../state/settings-store';
import { useTenantStore } from '../../state/tenant-store';
import { ActionOutcome, CheckboxRow } from './SettingFields';

type OnOffSetting = 'deduplicate_tokens' | 'fingerprint_tokens' | 'disable_ephemeral_proxy';

/** Each on/off setting's label and what it does, as the vault and the proxy apply it. */
const ON_OFF: Record<OnOffSetting, { label: string; meaning: ReactNode }> = {
  deduplicate_tokens: {
    label: 'Deduplicate tokens',
    meaning: (
      <>
        A create that leaves out <code>deduplicate_token</code> returns the token with the same fingerprint instead of making another.
      </>
    ),
  },
  fingerprint_tokens: {
    label: 'Fingerprint every token',
    meaning: (
      <>
        Off: only tokens created with their own <code>fingerprint_expression</code> get a fingerprint, so the others are never deduplicated.
      </>
    ),
  },
  disable_ephemeral_proxy: {
    label: 'Refuse ephemeral proxy calls',
    meaning: (
      <>
        <code>/proxy</code> without a proxy key answers 403 <code>proxy_error</code>; pre-configured proxies still answer.
      </>
    ),
  },
};

/** The name and the four settings, started from the engine's tenant; every save the engine confirms restarts it (keyed). */
function TenantForm({ detail, onSaved }: { detail: TenantDetail; onSaved: (done: string | null) => void }) {
  const api = useWorkbenchApi();
  const loaded = useTenantStore((state) => state.loaded);
  const [name, setName] = useState(detail.tenant.name);
  const [settings, setSettings] = useState<TenantSettingsMap>(detail.tenant.settings);
  const { busy, problem, run } = useEngineCall();
  const edit = (change: Partial<TenantSettingsMap>) => {
    setSettings({ ...settings, ...change });
    onSaved(null);
  };
  const onOff = (setting: OnOffSetting) => (
    <div className="limit" key={setting}>
      <label className="limit-field">
        <input type="checkbox" checked={settings[setting] === 'true'} onChange={(event) => edit({ [setting]: String(event.target.checked) })} />
        <span className="limit-label">{ON_OFF[setting].label}</span>
      </label>
      <p className="muted limit-meaning">
        <code>{setting}</code>: {ON_OFF[setting].meaning}
      </p>
    </div>
  );
  return (
    <form
      aria-label="Tenant"
      onSubmit={(event) => {
        event.preventDefault();
        void run(async () => {
          loaded(await api.updateTenant({ name, settings }));
          onSaved('Saved: the next request follows these settings, and tenant.updated was raised.');
        });
      }}
    >
      <div className="limit">
        <label className="limit-field">
          <span className="limit-label">Name</span>
          <input
            type="text"
            value={name}
            maxLength={200}
            onChange={(event) => {
              setName(event.target.value);
              onSaved(null);
            }}
          />
        </label>
        <p className="muted limit-meaning">
          1 to 200 characters. Id <code>{detail.tenant.id}</code>, the <code>tenant_id</code> of every token.
        </p>
      </div>
      {onOff('deduplicate_tokens')}
      <div className="limit">
        <label className="limit-field">
          <span className="limit-label">A duplicate create</span>
          <select
            value={settings.token_deduplication_behavior}
            onChange={(event) => edit({ token_deduplication_behavior: event.target.value as TenantSettingsMap['token_deduplication_behavior'] })}
          >
            <option value="read_existing">returns the existing token as it is</option>
            <option value="update_existing">updates the existing token with its data</option>
          </select>
        </label>
        <p className="muted limit-meaning">
          <code>token_deduplication_behavior</code>: what deduplication does with the token it finds. Updating needs <code>token:update</code> on it; token intents
          always update.
        </p>
      </div>
      {onOff('fingerprint_tokens')}
      {onOff('disable_ephemeral_proxy')}
      <div className="settings-actions">
        <button type="submit" className="primary" disabled={busy}>
          Save tenant
        </button>
      </div>
      <Alert message={problem} />
    </form>
  );
}

/** Tokens per type and this month's active tokens, as GET /tenants/self/reports/usage counts them. */
function Usage({ usage }: { usage: TenantDetail['usage'] }) {
  const api = useWorkbenchApi();
  const { busy, problem, run } = useEngineCall();
  const types = Object.entries(usage.metrics_by_type);
  return (
    <>
      <h3 className="settings-subheading">Usage</h3>
      <p>
        {plural(usage.total_tokens, 'token', 'tokens')} in the vault; {formatCount(usage.monthly_active_tokens)} active this month (created, read or used since
        the 1st, UTC).
      </p>
      {types.length > 0 && (
        <table className="data-table" aria-label="Tokens by type">
          <ColumnHeads columns={['Type', 'Tokens', 'Newest created']} />
          <tbody>
            {types.map(([type, { count, last_created_at }]) => (
              <tr key={type}>
                <td>
                  <code>{type}</code>
                </td>
                <td className="number">{formatCount(count)}</td>
                <td className="time">{new Date(last_created_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="settings-actions">
        <button type="button" disabled={busy} onClick={() => void run(() => useTenantStore.refresh(api))}>
          Count again
        </button>
      </div>
      <Alert message={problem} />
    </>
  );
}

/** Whether DELETE /tenants/self may wipe the vault: an engine setting, applied as soon as it is ticked. */
function DeleteToggle({ settings }: { settings: EngineSettings }) {
  const api = useWorkbenchApi();
  const loaded = useSettingsStore((state) => state.loaded);
  const setting = settings.tenantDelete.allowTenantDelete;
  const { problem, run } = useEngineCall();
  const [done, setDone] = useState<string | null>(null);
  return (
    <>
      <h3 className="settings-subheading">Deleting the tenant</h3>
      <CheckboxRow
        label="Allow deleting the tenant"
        setting={setting}
        checked={setting.value}
        onChange={(allowTenantDelete) =>
          void run(async () => {
            loaded(await api.changeTenantDelete({ allowTenantDelete }));
            setDone(allowTenantDelete ? 'Allowed: DELETE /tenants/self now wipes the vault.' : 'Refused: DELETE /tenants/self answers 422.');
          })
        }
      >
        On, a management key with <code>tenant:delete</code> can wipe every token, application, proxy and reactor through <code>DELETE /tenants/self</code>; the
        seed given at start is applied again. Off (the default), it answers 422. <code>serve --allow-tenant-delete</code> turns it on for a run.
      </CheckboxRow>
      <ActionOutcome done={done} problem={problem} />
    </>
  );
}

/**
 * The tenant (docs/api.md, Tenant): its name and the settings that change what the vault and the proxy do, saved as
 * PUT /tenants/self saves them; its usage; and whether the API may delete it, which is the engine's to decide.
 */
export function TenantSection() {
  const detail = useTenantStore((state) => state.value);
  const problem = useTenantStore((state) => state.problem);
  const settings = useSettingsStore((state) => state.value);
  const [done, setDone] = useState<string | null>(null);
  useTenantStore.useRefreshed();
  return (
    <section className="panel settings-section" aria-labelledby="settings-tenant">
      <h2 id="settings-tenant">Tenant</h2>
      <p className="muted settings-hint">
        What <code>GET /tenants/self</code> answers. Its settings apply from the next request, to every client.
      </p>
      <Alert message={problem} />
      {detail ? (
        <>
          <TenantForm key={JSON.stringify(detail.tenant)} detail={detail} onSaved={setDone} />
          <p role="status" className="muted">
            {done}
          </p>
          <Usage usage={detail.usage} />
        </>
      ) : (
        !problem && <p className="muted">Reading the tenant…</p>
      )}
      {settings && <DeleteToggle settings={settings} />}
    </section>
  );
}
