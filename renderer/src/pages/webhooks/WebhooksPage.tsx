import type { WebhookView } from '../../../../shared/workbench/webhook-contract';
import { DefinitionPage } from '../../components/DefinitionPage';
import type { ResourceState } from '../../state/resource-store';
import { useWebhooksStore } from '../../state/webhooks-store';
import { VerifySignatures } from './VerifySignatures';
import { WebhookDeliveries } from './WebhookDeliveries';
import { WebhookEditor } from './WebhookEditor';

/** The webhooks alone, as the definition page lists them (the store holds the event types and the limit beside them). */
const useWebhookList = Object.assign(
  <T,>(selector: (state: Pick<ResourceState<WebhookView[]>, 'value' | 'problem'>) => T): T => useWebhooksStore((state) => selector({ value: state.value?.webhooks ?? null, problem: state.problem })),
  { useRefreshed: useWebhooksStore.useRefreshed },
);

/**
 * The webhooks: the list beside the one chosen, edited as a form, with its deliveries live (each redelivered at will,
 * a test event sent), and the key and code that verify a delivery's signature.
 */
export function WebhooksPage() {
  const listed = useWebhooksStore((state) => state.value);
  const eventTypes = listed?.event_types ?? [];
  const max = listed?.max_webhooks;
  return (
    <DefinitionPage
      store={useWebhookList}
      list={{
        plural: 'Webhooks',
        one: 'webhook',
        hint: `Each event a webhook subscribes to is POSTed to its URL, signed${max === undefined ? '' : `; at most ${max} per tenant`}. Deliveries show live below the one chosen.`,
        columns: ['URL', 'Events', 'Status'],
        cells: (webhook) => (
          <>
            <td className="mono proxy-destination">{webhook.url}</td>
            <td>{webhook.events.length}</td>
            <td className={webhook.status === 'disabled' ? 'status-warn' : undefined}>{webhook.status}</td>
          </>
        ),
      }}
      editor={(webhook, events) => listed && <WebhookEditor webhook={webhook} eventTypes={eventTypes} {...events} />}
      panels={(webhook) => (
        <>
          <WebhookDeliveries key={webhook.id} webhook={webhook} />
          <VerifySignatures webhook={webhook} />
        </>
      )}
    />
  );
}
