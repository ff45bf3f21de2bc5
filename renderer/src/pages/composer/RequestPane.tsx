import { useMemo } from 'react';
import { Alert } from '../../components/Alert';
import type { MarkedRange } from '../../components/CodeEditor';
import { Tabs } from '../../components/Tabs';
import { useComposerStore } from '../../state/composer-store';
import { CopyAsCode } from './CopyAsCode';
import { KindSwitch } from './KindSwitch';
import { QueryTable } from './QueryTable';
import { RemoteTargets } from './RemoteTargets';
import { RequestBody } from './RequestBody';
import { RequestFlags } from './RequestFlags';
import { RequestLine } from './RequestLine';
import { useResponseState } from './response-state';
import { RowsTable } from './RowsTable';
import { SendAs } from './SendAs';
import { ServiceHeaders } from './ServiceHeaders';
import { queryOf } from './wire-request';
import { WirePreview } from './WirePreview';

/** Every place in the body where the text a failure names stands. */
function rangesOf(body: string, text: string | null): MarkedRange[] {
  if (!text) return [];
  const ranges: MarkedRange[] = [];
  for (let at = body.indexOf(text); at !== -1; at = body.indexOf(text, at + text.length)) ranges.push({ from: at, to: at + text.length });
  return ranges;
}

/**
 * What the last answer points at in the body, while the body is still the one that was sent: the text a failed proxy
 * request named, or the expressions it sent empty.
 */
function useMarked(): readonly MarkedRange[] {
  const state = useResponseState();
  const result = useComposerStore((composer) => composer.result);
  const body = useComposerStore((composer) => composer.draft.body);
  return useMemo(() => {
    if (result?.kind !== 'exchange' || result.sentBody !== body) return [];
    if (state?.kind === 'proxy') return rangesOf(body, state.culprit);
    return state?.kind === 'destination' ? state.empty.map(({ from, to }) => ({ from, to })) : [];
  }, [state, result, body]);
}

export function RequestPane() {
  const tab = useComposerStore((state) => state.requestTab);
  const setTab = useComposerStore((state) => state.showRequestTab);
  const headers = useComposerStore((state) => state.draft.headers);
  const target = useComposerStore((state) => state.draft.target);
  const invalid = useComposerStore((state) => state.invalid);
  const notice = useComposerStore((state) => state.notice);
  const edit = useComposerStore((state) => state.edit);
  const marked = useMarked();
  const queryCount = queryOf(target).length;
  const headerCount = headers.filter((row) => row.enabled).length;
  return (
    <section className="panel composer" aria-labelledby="request-title">
      <div className="composer-head">
        <h2 id="request-title">Request</h2>
        <KindSwitch />
      </div>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <RequestLine />
      <Alert message={invalid} />
      <WirePreview />
      <CopyAsCode />
      <SendAs />
      <RemoteTargets />
      <Tabs
        label="Request parts"
        selected={tab}
        onSelect={setTab}
        tabs={[
          { id: 'body', label: 'Body', panel: () => <RequestBody marked={marked} /> },
          {
            id: 'query',
            label: (
              <>
                Query<span className="tab-count">{queryCount || ''}</span>
              </>
            ),
            panel: () => <QueryTable />,
          },
          {
            id: 'headers',
            label: (
              <>
                Headers<span className="tab-count">{headerCount || ''}</span>
              </>
            ),
            panel: () => (
              <>
                <RowsTable label="Headers" rows={headers} switchable onChange={(rows) => edit({ headers: rows })} />
                <p className="muted rows-hint">
                  Write a credential as <code>{'${secret:NAME}'}</code> (Settings, under Secrets), and a value that changes between environments as{' '}
                  <code>{'${env:NAME}'}</code>: the engine puts their values in as the request leaves. Save… moves a credential written in plain text into
                  Secrets.
                </p>
              </>
            ),
          },
          { id: 'service', label: 'Service headers', panel: () => <ServiceHeaders /> },
        ]}
      />
      <RequestFlags />
    </section>
  );
}
