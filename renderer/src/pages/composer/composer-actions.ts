import { useEffect } from 'react';
import type { WorkbenchApi } from '../../../../shared/workbench/methods';
import { messageOf } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import type { RemoteTarget } from '../../../../shared/workbench/composer-contract';
import type { ApplicationChoice } from '../../../../shared/workbench/application-contract';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { remoteTargetToUse, useRemoteTargetsStore } from '../../state/remote-targets-store';
import { EMPTY_DRAFT, useComposerStore, type ComposerDraft } from '../../state/composer-store';
import { useProxyChoicesStore } from '../../state/proxy-choices-store';
import type { ProxyChoice } from '../../../../shared/workbench/composer-contract';
import { headerPrefix, useEngineStore } from '../../state/engine-store';
import { wireRequest } from './wire-request';
import { randomId } from '../../api/random-id';

/** Where a composed request goes: a remote target with its key, or this engine as the chosen application. */
export type SendTarget =
  | { to: { target_id: string }; remote: RemoteTarget; application: null }
  | { to: { application_id: string }; remote: null; application: ApplicationChoice };

interface TargetChoices {
  targetId: string | null;
  targets: readonly RemoteTarget[] | null;
  applicationId: string | null;
  applications: readonly ApplicationChoice[] | null;
}

/** The target chosen among those known, or what to do when there is none. */
export function sendTargetOf({ targetId, targets, applicationId, applications }: TargetChoices): SendTarget | string {
  if (targetId !== null) {
    const remote = remoteTargetToUse(targets, targetId);
    if (remote) return { to: { target_id: remote.id }, remote, application: null };
    if (targets === null) return 'The remote targets are still being listed: send again in a moment.';
  }
  const application = applicationToUse(applications, applicationId);
  if (!application) return 'There is no application to send as: create one (POST /applications with the management key).';
  return { to: { application_id: application.id }, remote: null, application };
}

/**
 * The pre-configured proxy a draft goes through, by id (nothing for the ephemeral proxy and the vault API), or what to
 * do when it cannot be found. Only this engine's: a remote target's proxies are not listed here.
 */
export function proxyOf(draft: ComposerDraft, choices: readonly ProxyChoice[] | null, remote: boolean): { proxy_id?: string } | string {
  if (draft.kind !== 'proxy' || draft.proxy === undefined) return {};
  if (remote) return `The proxy “${draft.proxy}” is one of this engine's: send to This engine, or through a destination URL.`;
  if (choices === null) return 'The pre-configured proxies are still being listed: send again in a moment.';
  const proxy = choices.find((choice) => choice.name === draft.proxy);
  if (!proxy) return `There is no pre-configured proxy named “${draft.proxy}”: create it (Proxies page, or POST /proxies), or choose another.`;
  return { proxy_id: proxy.id };
}

/** The target the Composer sends to now. */
export function sendTarget(): SendTarget | string {
  const { targetId, applicationId } = useComposerStore.getState();
  const targets = useRemoteTargetsStore.getState().value;
  return sendTargetOf({ targetId, targets, applicationId, applications: useApplicationsStore.getState().value });
}

/** Sends the request as composed, to the chosen target; says what to fix when it cannot be sent. */
export async function sendComposed(api: WorkbenchApi): Promise<void> {
  const composer = useComposerStore.getState();
  if (composer.sending) return;
  const status = useEngineStore.getState().status;
  const wire = wireRequest(composer.draft, headerPrefix());
  if (typeof wire === 'string') return composer.refused(wire);
  const target = sendTarget();
  if (typeof target === 'string') return composer.refused(target);
  const proxy = proxyOf(composer.draft, useProxyChoicesStore.getState().value, target.remote !== null);
  if (typeof proxy === 'string') return composer.refused(proxy);
  const id = randomId();
  composer.started(id);
  try {
    const exchange = await api.sendRequest({ id, ...target.to, ...proxy, ...wire });
    composer.finished({
      kind: 'exchange',
      exchange,
      throughProxy: composer.draft.kind === 'proxy',
      applicationName: target.application?.name ?? null,
      sentBody: wire.body,
      remote: target.remote,
    });
    if (target.application && !target.application.workbench_key) void useApplicationsStore.refresh(api);
  } catch (error) {
    composer.finished({ kind: 'no-engine', tried: `${wire.method} ${target.remote?.base_url ?? status?.url ?? ''}${wire.path}`, detail: messageOf(error) });
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
  const application = applicationToUse(useApplicationsStore.getState().value, composer.applicationId);
  if (!application) return composer.refused('There is no application to create the test card with.');
  const created = await api.sendRequest({
    id: randomId(),
    application_id: application.id,
    method: 'POST',
    path: '/tokens',
    headers: [['Content-Type', 'application/json']],
    body: JSON.stringify({ type: 'card', data: TEST_CARD() }),
  });
  if (!application.workbench_key) void useApplicationsStore.refresh(api);
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
