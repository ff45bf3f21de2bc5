import { useMemo } from 'react';
import { ARGS_OFFSET, reactRequest, type ReactorView } from '../../../../shared/workbench/reactor-contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { ApplicationSelect } from '../../components/ApplicationSelect';
import { CodeEditor } from '../../components/CodeEditor';
import { ReactorTrace } from '../../components/ReactorTrace';
import { useEngineFlags } from '../composer/engine-flags';
import { expressionAssist } from '../composer/expression-assist';
import { TrySend, useTryAs } from '../proxies/TryOutcome';

export const FIRST_ARGS = '{\n  "amount": 100\n}';

/**
 * Try: the args sent to the saved reactor through POST /reactors/{id}/react as one of the private applications, with
 * the Composer's JSON editor (token completion, the engine's flags), then the trace of that very call.
 */
export function TryReactor({ reactor, args, onArgs }: { reactor: ReactorView; args: string; onArgs: (args: string) => void }) {
  const api = useWorkbenchApi();
  const tried = useTryAs('react as');
  const { callers, application, choose } = tried;
  // The react Try sends, checked by the engine as the Composer's requests are: the flags point into the args.
  const diagnostics = useEngineFlags({ application_id: application?.id ?? null, target_id: null, ...reactRequest(reactor.id, args) }, args, ARGS_OFFSET);
  const assist = useMemo(() => expressionAssist(api, () => ({ applicationId: application?.id ?? null, contentType: 'application/json', remote: null })), [api, application]);
  const send = () => tried.send((application_id) => api.tryReactor({ request_id: crypto.randomUUID(), id: reactor.id, application_id, args }));
  return (
    <section className="panel proxy-try" aria-labelledby="reactor-try-title">
      <h2 id="reactor-try-title">Try</h2>
      <p className="muted proxy-hint">Sends {'{"args": …}'} to /reactors/…/react as the application you choose, as any client would; History records it too.</p>
      {application && (
        <div className="proxy-inline">
          <ApplicationSelect label="React as" applications={callers} value={application.id} onChange={choose} />
        </div>
      )}
      <CodeEditor label="Args" value={args} language="json" onChange={onArgs} onSubmit={() => void send()} extensions={assist} diagnostics={diagnostics} />
      <p className="muted proxy-hint">Ctrl+Space completes a token id by its mask; flags on the args are the engine's, as in the Composer. Ctrl+Enter reacts.</p>
      <TrySend tried={tried} label="React" working="Reacting…" send={() => void send()} trace={(entry) => entry.reactor && <ReactorTrace details={entry.reactor} />} />
    </section>
  );
}
