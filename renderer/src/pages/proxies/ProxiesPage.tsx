import { useState } from 'react';
import type { ProxyView } from '../../../../shared/workbench/proxy-contract';
import { DefinitionPage } from '../../components/DefinitionPage';
import { useProxiesStore } from '../../state/proxies-store';
import { ProxyEditor } from './ProxyEditor';
import { ProxySnippet } from './ProxySnippet';
import { FIRST_SAMPLE, TryProxy, type Sample } from './TryProxy';
import './proxies.css';

/** A proxy's transforms in a few words: each side that has any on a line of its own, its types in order. */
function Transforms({ proxy }: { proxy: ProxyView }) {
  const sides = [
    ['request', proxy.request_transforms],
    ['response', proxy.response_transforms],
  ] as const;
  const named = sides.filter(([, list]) => list.length > 0);
  if (named.length === 0) return <>none</>;
  return named.map(([side, list]) => <div key={side}>{`${side}: ${list.map((t) => t.type).join(', ')}`}</div>);
}

/**
 * The pre-configured proxies: the list beside the one chosen, edited as a form, with the code that calls it and a
 * Try that sends a sample request through it and shows its pipeline step by step.
 */
export function ProxiesPage() {
  const [sample, setSample] = useState<Sample>(FIRST_SAMPLE);
  return (
    <DefinitionPage
      store={useProxiesStore}
      list={{
        plural: 'Proxies',
        one: 'proxy',
        hint: 'A destination, transforms and configuration kept under a key: clients call /proxy with the key alone.',
        columns: ['Destination', 'Transforms', 'State'],
        nameNote: (proxy) =>
          proxy.file && (
            <span className="proxy-file muted">
              <span className="badge">file</span> <span className="mono">{proxy.file.path}</span>
            </span>
          ),
        cells: (proxy) => (
          <>
            <td className="mono proxy-destination">{proxy.destination_url}</td>
            <td className="mono proxy-transform-sides">
              <Transforms proxy={proxy} />
            </td>
            <td>{proxy.state}</td>
          </>
        ),
      }}
      editor={(proxy, events) => <ProxyEditor proxy={proxy} {...events} />}
      panels={(proxy) => (
        <>
          <ProxySnippet proxy={proxy} sample={sample} />
          <TryProxy proxy={proxy} sample={sample} onSample={setSample} />
        </>
      )}
    />
  );
}
