import { useEffect } from 'react';
import type { WorkbenchApi } from '../../../../shared/workbench/methods';
import { WorkbenchError } from '../../../../shared/workbench/transport';
import { messageOf } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { useApplicationsStore } from '../../state/applications-store';
import { useComposerStore } from '../../state/composer-store';
import { headerPrefix, useEngineStore } from '../../state/engine-store';
import { useEnvironmentsStore } from '../../state/environments-store';
import { useRemoteTargetsStore } from '../../state/remote-targets-store';
import { useRequestCheckStore } from '../../state/request-check-store';
import { useProxyChoicesStore } from '../../state/proxy-choices-store';
import { proxyOf, sendTarget, sendTargetOf, type SendTarget } from './composer-actions';
import type { AssistContext } from './expression-assist';
import { draftChecker, type WholeCheckQuery } from './checked-draft';
import { BODY_TYPES, wireRequest, type WireRequest } from './wire-request';

/**
 * Asks the engine to check each request it is given, one at a time: a request given while one is being checked waits,
 * and replaces any that was waiting. So typing never queues up checks, and the flags for the last keystroke come one
 * round trip after the check before it ends, with no fixed delay. Each check sends only the body's change since the
 * last one (draftChecker), so a keystroke in a large body does not send the body again.
 */
function latestOnly(api: WorkbenchApi): (query: WholeCheckQuery | null) => void {
  let running = false;
  let waiting: { query: WholeCheckQuery | null } | null = null;
  const check = draftChecker(api.checkRequest);
  const { settled, failed } = useRequestCheckStore.getState();
  async function drain() {
    running = true;
    while (waiting) {
      const { query } = waiting;
      waiting = null;
      try {
        settled(query && { body: query.body, result: await check(query) });
      } catch (error) {
        failed({ message: messageOf(error), overLimit: error instanceof WorkbenchError && error.problem.status === 413 });
      }
    }
    running = false;
  }
  return (query) => {
    waiting = { query };
    if (!running) void drain();
  };
}

/** What the engine checks: the request as Send would send it, to whom it would go. Null when it could not be sent. */
function checkQuery(wire: WireRequest | string, target: SendTarget | string, proxy: { proxy_id?: string } | string): WholeCheckQuery | null {
  if (typeof wire === 'string' || typeof proxy === 'string') return null;
  if (typeof target === 'string') return { application_id: null, target_id: null, ...proxy, ...wire };
  return { application_id: target.application?.id ?? null, target_id: target.remote?.id ?? null, ...proxy, ...wire };
}

/**
 * Keeps the engine's flags on the request being composed current, while the engine is connected. It follows the stores
 * themselves rather than this component's renders, so a keystroke's check is on its way before React renders the
 * keystroke.
 */
export function useRequestChecks(): void {
  const api = useWorkbenchApi();
  const live = useEngineStore((state) => state.connection === 'live');
  useEffect(() => {
    if (!live) return;
    const ask = latestOnly(api);
    let asked: readonly unknown[] = [];
    const askIfChanged = () => {
      const { draft, applicationId, targetId } = useComposerStore.getState();
      const applications = useApplicationsStore.getState().value;
      const targets = useRemoteTargetsStore.getState().value;
      const proxies = useProxyChoicesStore.getState().value;
      const prefix = headerPrefix();
      // The environments too: choosing or editing one changes what the request's references stand for.
      const inputs = [draft, prefix, targetId, targets, applicationId, applications, useEnvironmentsStore.getState().value, proxies];
      if (inputs.every((input, i) => input === asked[i])) return;
      asked = inputs;
      const target = sendTargetOf({ targetId, targets, applicationId, applications });
      ask(checkQuery(wireRequest(draft, prefix), target, proxyOf(draft, proxies, typeof target !== 'string' && target.remote !== null)));
    };
    askIfChanged();
    const stops = [useComposerStore, useApplicationsStore, useRemoteTargetsStore, useEngineStore, useEnvironmentsStore, useProxyChoicesStore].map((store) =>
      store.subscribe(askIfChanged),
    );
    return () => stops.forEach((stop) => stop());
  }, [api, live]);
}

/** What the editor's help reads of the request when it is asked: who it goes to, and the body's type. */
export function assistContext(): AssistContext {
  const { draft } = useComposerStore.getState();
  const wire = wireRequest(draft, headerPrefix());
  const target = sendTarget();
  const contentType = typeof wire === 'string' ? BODY_TYPES[draft.bodyMode] : (wire.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? null);
  if (typeof target === 'string') return { applicationId: null, contentType, remote: null };
  return { applicationId: target.application?.id ?? null, contentType, remote: target.remote?.name ?? null };
}
