import { useCallback, useRef, useState, type KeyboardEvent } from 'react';
import type { ProxyView } from '../../../../shared/workbench/proxy-contract';
import { Alert } from '../../components/Alert';
import { ColumnHeads } from '../../components/ColumnHeads';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { SplitPane } from '../../components/SplitPane';
import { useApplicationsStore } from '../../state/applications-store';
import { useProxiesStore } from '../../state/proxies-store';
import { ProxyEditor } from './ProxyEditor';
import { ProxySnippet } from './ProxySnippet';
import { FIRST_SAMPLE, TryProxy, type Sample } from './TryProxy';
import './proxies.css';

/** A proxy's transforms in a few words: each side's types in order. */
function transformsOf(proxy: ProxyView): string {
  const side = (list: ProxyView['request_transforms']) => (list.length === 0 ? '–' : list.map((t) => t.type).join(', '));
  return `${side(proxy.request_transforms)} → ${side(proxy.response_transforms)}`;
}

/** Up and Down move between the rows' buttons, Home and End to the first and last, as in a list. */
function moveAmongRows(event: KeyboardEvent<HTMLTableSectionElement>) {
  const buttons = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('button.proxy-row')];
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: buttons.length - 1 }[event.key];
  if (at === -1 || to === undefined || !buttons[to]) return;
  event.preventDefault();
  buttons[to].focus();
}

/** The proxies, one a row: chosen to edit; a new one from the button above. */
function ProxyList({ selected, onSelect }: { selected: string | null; onSelect: (id: string | null) => void }) {
  const proxies = useProxiesStore((state) => state.value);
  const problem = useProxiesStore((state) => state.problem);
  return (
    <section className="panel proxy-list" aria-labelledby="proxies-title">
      <div className="panel-head">
        <h2 id="proxies-title">Proxies</h2>
        <button type="button" className="small" onClick={() => onSelect(null)}>
          New proxy
        </button>
      </div>
      <p className="muted proxy-hint">A destination, transforms and configuration kept under a key: clients call /proxy with the key alone.</p>
      <Alert message={problem && `Could not list the proxies: ${problem}. Is the engine running?`} />
      {proxies?.length === 0 && <p className="muted">No proxies yet: fill in the form to make the first.</p>}
      {proxies && proxies.length > 0 && (
        <table className="data-table" aria-label="Proxies">
          <ColumnHeads columns={['Name', 'Destination', 'Transforms', 'State']} />
          <tbody onKeyDown={moveAmongRows}>
            {proxies.map((proxy) => (
              <tr key={proxy.id} aria-selected={proxy.id === selected} className={proxy.id === selected ? 'selected' : undefined}>
                <td>
                  <button type="button" className="link proxy-row" aria-current={proxy.id === selected ? 'true' : undefined} onClick={() => onSelect(proxy.id)}>
                    {proxy.name}
                  </button>
                  {proxy.file && (
                    <span className="proxy-file muted">
                      <span className="badge">file</span> <span className="mono">{proxy.file.path}</span>
                    </span>
                  )}
                </td>
                <td className="mono proxy-destination">{proxy.destination_url}</td>
                <td className="mono">{transformsOf(proxy)}</td>
                <td>{proxy.state}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * The pre-configured proxies: the list beside the one chosen, edited as a form, with the code that calls it and a
 * Try that sends a sample request through it and shows its pipeline step by step.
 */
export function ProxiesPage() {
  useProxiesStore.useRefreshed();
  useApplicationsStore.useRefreshed();
  const proxies = useProxiesStore((state) => state.value);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [sample, setSample] = useState<Sample>(FIRST_SAMPLE);
  const selected = proxies?.find((proxy) => proxy.id === selectedId) ?? null;
  // Changes not saved yet: choosing another proxy (or a new one) asks before it drops them.
  const changed = useRef(false);
  const onChanged = useCallback((now: boolean) => void (changed.current = now), []);
  const [leaving, setLeaving] = useState<{ to: string | null } | null>(null);
  // Counts the new proxies begun: "New proxy" on a new form starts an empty one.
  const [begun, setBegun] = useState(0);
  const show = (id: string | null) => {
    changed.current = false;
    if (id === null) setBegun((n) => n + 1);
    setSelectedId(id);
    setSaid(null);
  };
  const select = (id: string | null) => {
    if (id === selectedId && id !== null) return;
    if (changed.current) setLeaving({ to: id });
    else show(id);
  };
  return (
    <SplitPane
      label="Resize the proxy list"
      storageKey="tokenbench.proxies.split"
      initial={0.34}
      start={<ProxyList selected={selected?.id ?? null} onSelect={select} />}
      end={
        <div className="proxy-pane">
          <section className="panel">
            {said && (
              <p className="status-ok proxy-said" role="status">
                {said}
              </p>
            )}
            <ProxyEditor
              // A saved change starts the form again from what the engine kept.
              key={selected ? `${selected.id}@${selected.modified_at ?? selected.created_at}` : `new-${begun}`}
              proxy={selected}
              onSaved={(proxy, done) => {
                setSelectedId(proxy.id);
                setSaid(done);
              }}
              onDeleted={(done) => {
                setSelectedId(null);
                setSaid(done);
              }}
              onChanged={onChanged}
            />
            {leaving && (
              <ConfirmDialog
                title={`Discard your changes to ${selected ? `proxy “${selected.name}”` : 'the new proxy'}?`}
                confirm="Discard changes"
                keep="Keep editing"
                busy={false}
                problem={null}
                onConfirm={() => {
                  setLeaving(null);
                  show(leaving.to);
                }}
                onClose={() => setLeaving(null)}
              >
                <p>They are not saved: the engine keeps the proxy as it was. Keep editing to save them first ({'Ctrl+S'}).</p>
              </ConfirmDialog>
            )}
          </section>
          {selected && <ProxySnippet proxy={selected} sample={sample} />}
          {selected && <TryProxy proxy={selected} sample={sample} onSample={setSample} />}
        </div>
      }
    />
  );
}
