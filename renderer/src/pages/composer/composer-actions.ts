import { useEffect } from 'react';
import type { WorkbenchApi } from '../../../../shared/workbench/methods';
import { messageOf } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { applicationToUse, refreshApplications, useApplicationsStore } from '../../state/applications-store';
import { EMPTY_DRAFT, useComposerStore } from '../../state/composer-store';
import { useEngineStore } from '../../state/engine-store';
import { wireRequest } from './wire-request';

const DEFAULT_PREFIX = 'BT';

/** Sends the request as composed, as the chosen application; says what to fix when it cannot be sent. */
export async function sendComposed(api: WorkbenchApi): Promise<void> {
  const composer = useComposerStore.getState();
  if (composer.sending) return;
  const status = useEngineStore.getState().status;
  const application = applicationToUse(useApplicationsStore.getState().applications, composer.applicationId);
  const wire = wireRequest(composer.draft, status?.headerPrefix ?? DEFAULT_PREFIX);
  if (typeof wire === 'string') return composer.refused(wire);
  if (!application) return composer.refused('There is no application to send as: create one (POST /applications with the management key).');
  const id = crypto.randomUUID();
  composer.started(id);
  try {
    const exchange = await api.sendRequest({ id, application_id: application.id, ...wire });
    composer.finished({
      kind: 'exchange',
      exchange,
      throughProxy: composer.draft.kind === 'proxy',
      applicationName: application.name,
      sentBody: wire.body,
    });
    if (!application.workbench_key) void refreshApplications(api);
  } catch (error) {
    composer.finished({ kind: 'no-engine', tried: `${wire.method} ${status?.url ?? ''}${wire.path}`, detail: messageOf(error) });
  }
}

export function cancelComposed(api: WorkbenchApi): void {
  const id = useComposerStore.getState().sending;
  if (id) void api.cancelRequest({ id });
}

/** Ctrl/⌘+Enter sends and Escape cancels, anywhere on the Composer (the editor takes them itself, first). */
export function useComposerKeys(): void {
  const api = useWorkbenchApi();
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void sendComposed(api);
      } else if (event.key === 'Escape' && useComposerStore.getState().sending) {
        event.preventDefault();
        cancelComposed(api);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [api]);
}

/** A test card, 4242… (Visa's test number), expiring in three years. */
const TEST_CARD = () => ({ number: '4242424242424242', expiration_month: 12, expiration_year: new Date().getFullYear() + 3, cvc: '123' });

/**
 * The first run: creates a test card token as the application to send as, then fills the Composer with a request
 * to the echo destination that uses it, so one Send shows what detokenizing does.
 */
export async function startWithTestCard(api: WorkbenchApi): Promise<void> {
  const composer = useComposerStore.getState();
  const application = applicationToUse(useApplicationsStore.getState().applications, composer.applicationId);
  if (!application) return composer.refused('There is no application to create the test card with.');
  const created = await api.sendRequest({
    id: crypto.randomUUID(),
    application_id: application.id,
    method: 'POST',
    path: '/tokens',
    headers: [['Content-Type', 'application/json']],
    body: JSON.stringify({ type: 'card', data: TEST_CARD() }),
  });
  if (!application.workbench_key) void refreshApplications(api);
  const outcome = created.outcome;
  const token = outcome.kind === 'response' && outcome.status === 201 ? (JSON.parse(atob(outcome.body_base64)) as { id: string }) : null;
  if (!token) {
    const why = outcome.kind === 'response' ? `the API answered ${outcome.status}` : 'the request did not complete';
    return composer.refused(`Could not create a test card as “${application.name}”: ${why}. Pick an application with token:create.`);
  }
  const echo = useEngineStore.getState().status?.echoUrl;
  const body = `{
  "card_number": "{{ ${token.id} | json: '$.number' }}",
  "expiration": "{{ ${token.id} | card_exp: 'MM/YY' }}",
  "amount": 1200
}`;
  composer.chooseApplication(application.id);
  composer.load(
    { ...EMPTY_DRAFT, kind: 'proxy', method: 'POST', target: echo ? `${echo}/v1/charges` : '', bodyMode: 'json', body },
    `Created a test card token (Visa •••• 4242) as “${application.name}”. The request below sends it to ${
      echo ? 'the echo destination, which shows what it received' : 'a destination you enter'
    }: press Send.`,
  );
}
