import type { ReactNode } from 'react';
import { RUNTIME_RESOURCES } from '../../../../shared/workbench/proxy-contract';
import type { RuntimeDraft, RuntimeImage } from './proxy-draft';

/**
 * Code's runtime (docs/api.md, Code runtime): node-bt, or node22 with its timeout and resources, and what else the
 * owner's node22 code takes (`children`: a reactor's async and permissions). `of` names whose they are.
 */
export function RuntimeFields({
  of,
  runtime,
  change,
  timeout,
  children,
}: {
  of: string;
  runtime: RuntimeDraft;
  change: (patch: Partial<RuntimeDraft>) => void;
  timeout: { max: number; invalid: object };
  children?: ReactNode;
}) {
  return (
    <div className="proxy-inline">
      <label>
        <span>Runtime of {of}</span>
        <select value={runtime.image} onChange={(event) => change({ image: event.target.value as RuntimeImage })}>
          <option value="node-bt">node-bt (the default): module.exports = async (req) =&gt; …</option>
          <option value="node22">node22: module.exports = async (event) =&gt; …</option>
        </select>
      </label>
      {runtime.image === 'node22' && (
        <>
          <label>
            <span>Timeout of {of}, seconds</span>
            <input type="number" min={10} max={timeout.max} placeholder="10" value={runtime.timeout} onChange={(event) => change({ timeout: event.target.value })} {...timeout.invalid} />
          </label>
          <label>
            <span>Resources of {of}</span>
            <select value={runtime.resources} onChange={(event) => change({ resources: event.target.value })}>
              <option value="">standard (the default)</option>
              {RUNTIME_RESOURCES.filter((r) => r !== 'standard').map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          {children}
        </>
      )}
    </div>
  );
}
