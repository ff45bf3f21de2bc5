import type { WebhookView } from '../../../../shared/workbench/webhook-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { DefinitionActions, unplaced, useDefinitionDraft, type EditorEvents } from '../../components/definition-form';
import { TextField } from '../../components/FieldProblem';
import { useWebhooksStore } from '../../state/webhooks-store';
import { EventPicker } from './EventPicker';
import { WEBHOOK_DRAFTS, type WebhookDefinition } from './webhook-draft';

/** The fields the form places the engine's refusals at. */
const PLACED = /^(name|url|notify_email|events)$/;

/** A disabled webhook: why, what waits, and the way back. */
function DisabledNotice({ webhook }: { webhook: WebhookView }) {
  const api = useWorkbenchApi();
  const enabling = useEngineCall();
  const { id, name, url, notify_email, events } = webhook;
  const enable = () =>
    enabling.run(async () => {
      await api.updateWebhook({ id, name, url, notify_email, events, status: 'enabled' });
      await useWebhooksStore.refresh(api);
    });
  return (
    <div className="webhook-disabled" role="group" aria-label="Disabled">
      <p className="status-warn">
        Disabled: nothing is sent to it. The engine disables a webhook whose last 10 events each failed every attempt (a PUT with status disabled does too); the events it is sent from now
        on, and any retries due, wait until it is enabled again.
        {notify_email && <> The hosted service would e-mail {notify_email} about it; Tokenbench sends no mail and says so here instead.</>}
      </p>
      <p className="muted proxy-hint">Make the receiver answer 2xx (its last errors are in Deliveries below), then enable it: what waited is sent at once.</p>
      <button type="button" onClick={() => void enable()} disabled={enabling.busy}>
        Enable webhook
      </button>
      <Alert message={enabling.problem} />
    </div>
  );
}

/**
 * A webhook's definition as a form: name, URL, the e-mail the hosted service would notify, and the events. Saving
 * sends it whole (PUT, keeping its status); what the engine refuses (a URL the destination policy refuses, in its
 * words) is said at the field it names, and the focus goes to the first.
 */
export function WebhookEditor({ webhook, eventTypes, onSaved, onDeleted, onChanged }: { webhook: WebhookView | null; eventTypes: readonly string[] } & EditorEvents<WebhookView>) {
  const api = useWorkbenchApi();
  const save = (definition: WebhookDefinition) => (webhook ? api.updateWebhook({ id: webhook.id, ...definition, status: webhook.status }) : api.createWebhook(definition));
  const { draft, edit, problems, saving, submit, formProps } = useDefinitionDraft('webhook', webhook, WEBHOOK_DRAFTS, { save, refresh: () => useWebhooksStore.refresh(api) }, { onSaved, onChanged });
  const title = webhook ? `Webhook “${webhook.name}”` : 'New webhook';
  return (
    <form className="proxy-editor" aria-label={title} {...formProps(() => void submit(), false)}>
      <h2>{title}</h2>
      {webhook && (
        <p className="muted proxy-hint">
          <span className="mono">{webhook.id}</span> · {webhook.status} · made {new Date(webhook.created_at).toLocaleString()}
          {webhook.modified_at && <> · changed {new Date(webhook.modified_at).toLocaleString()}</>}
        </p>
      )}
      {webhook?.status === 'disabled' && <DisabledNotice webhook={webhook} />}
      <TextField label="Name" path="name" value={draft.name} problems={problems} onChange={(name) => edit({ name })} />
      <TextField
        label="URL"
        path="url"
        value={draft.url}
        problems={problems}
        onChange={(url) => edit({ url })}
        hint={
          webhook && webhook.warnings.length > 0 && webhook.url === draft.url
            ? `Delivered here; on the hosted service it would not be: ${webhook.warnings.join('; ')}.`
            : 'Where each event is POSTed, signed. A receiver on this machine works; Tokenbench’s own port never does.'
        }
      />
      <TextField
        label="Notify e-mail (optional)"
        path="notify_email"
        value={draft.notify_email}
        problems={problems}
        onChange={(notify_email) => edit({ notify_email })}
        hint="The hosted service e-mails this address when it disables the webhook. Tokenbench sends no mail: this page says so instead."
      />
      <EventPicker types={eventTypes} value={draft.events} onChange={(events) => edit({ events })} problems={problems} />
      <Alert message={unplaced(problems, PLACED)} />
      <DefinitionActions
        one="webhook"
        name={webhook?.name ?? null}
        saving={saving}
        warning={<p>Its deliveries go with it, those still waiting for a retry too. History keeps what was done. This cannot be undone.</p>}
        remove={() => api.deleteWebhook({ id: webhook!.id })}
        removed={async () => {
          await useWebhooksStore.refresh(api);
          onDeleted(`Deleted webhook “${webhook!.name}”.`);
        }}
      />
    </form>
  );
}
