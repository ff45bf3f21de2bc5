import { useId, type ReactNode } from 'react';
import type { HistoryEntry, ProxyDetails, TraceStep } from '../../../shared/workbench/history-contract';
import { CLIENT_WRITTEN_HEADERS } from '../../../shared/workbench/request-draft';
import { useHeaderPrefix } from '../state/engine-store';
import { keptTextOf } from './BodyView';
import { ColumnHeads } from './ColumnHeads';
import { formatMs } from './format';
import { diffable, headerChanges, lineDiff, type DiffLine } from './trace-diff';
import './pipeline-trace.css';

type Headers = readonly (readonly [string, string])[];
type Step = TraceStep;
/** What the request or answer looked like after a step: null body when history kept none to compare with. */
interface Shape {
  headers: Headers;
  body: string | null;
}

const STEP_NAMES: Record<string, string> = {
  tokenize: 'Tokenize',
  detokenize: 'Detokenize',
  header_expressions: 'Header expressions',
  destination: 'Destination',
  mask: 'Mask',
  append_json: 'Append JSON',
  append_text: 'Append text',
  append_header: 'Append header',
};

/** Unchanged lines beyond this many in a row are folded, keeping a few either side of each change. */
const CONTEXT = 3;

function folded(lines: readonly DiffLine[]): (DiffLine | { kind: 'fold'; count: number })[] {
  const near = lines.map((_, i) => lines.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((line) => line.kind !== 'same'));
  const out: (DiffLine | { kind: 'fold'; count: number })[] = [];
  lines.forEach((line, i) => {
    if (line.kind !== 'same' || near[i]) return void out.push(line);
    const last = out.at(-1);
    if (last?.kind === 'fold') last.count++;
    else out.push({ kind: 'fold', count: 1 });
  });
  return out;
}

const MARK = { same: '  ', added: '+ ', removed: '− ' } as const;

/** A body before and after a step, line by line: JSON one member a line, so the member that changed stands out. */
function BodyDiff({ before, after, label }: { before: string | null; after: string; label: string }) {
  if (before === null) {
    return (
      <>
        <p className="muted trace-note">History did not keep the body before this step (Settings › History keeps destinations' answers); what it left:</p>
        <pre className="code-block trace-body" aria-label={label}>
          {diffable(after)}
        </pre>
      </>
    );
  }
  const lines = lineDiff(before, after);
  if (lines.every((line) => line.kind === 'same')) return <p className="muted trace-note">The body went on unchanged.</p>;
  return (
    <pre className="code-block trace-body trace-diff" aria-label={label}>
      {folded(lines).map((line, i) =>
        line.kind === 'fold' ? (
          <span key={i} className="diff-fold">
            … {line.count} unchanged {line.count === 1 ? 'line' : 'lines'}
            {'\n'}
          </span>
        ) : (
          <span key={i} className={`diff-${line.kind}`}>
            {MARK[line.kind]}
            {line.text}
            {'\n'}
          </span>
        ),
      )}
    </pre>
  );
}

function HeaderDiff({ before, after, label }: { before: Headers; after: Headers; label: string }) {
  const changes = headerChanges(before, after);
  if (changes.length === 0) return <p className="muted trace-note">The headers went on unchanged.</p>;
  return (
    <table className="headers trace-headers" aria-label={label}>
      <ColumnHeads columns={['Header', 'Before', 'After']} />
      <tbody>
        {changes.map((change) => (
          <tr key={change.name} className={`diff-${change.kind}`}>
            <th scope="row">{change.name}</th>
            <td>{change.before ?? '(none)'}</td>
            <td>{change.after ?? '(removed)'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The request's headers as the pipeline's steps are given them: without the proxy's own (PFX-…) and those each client
 * writes for its connection (Host, Content-Length, …), which the proxy never passes on, so no step seems to drop them.
 */
function passedOn(headers: Headers, prefix: string): Headers {
  const own = `${prefix.toLowerCase()}-`;
  return headers.filter(([name]) => !CLIENT_WRITTEN_HEADERS.has(name.toLowerCase()) && !name.toLowerCase().startsWith(own));
}

/** Each step with the shape it found and the shape it left: the request's until the destination answers, then the answer's. */
function stepsWithShapes(entry: HistoryEntry, details: ProxyDetails, prefix: string) {
  let shape: Shape = { headers: passedOn(entry.request_headers, prefix), body: keptTextOf(entry.request_body) };
  let answered = false;
  return (details.trace ?? []).map((step) => {
    const before = shape;
    const side = answered ? 'response' : 'request';
    if (step.step === 'destination') {
      answered = true;
      shape = { headers: details.response?.headers ?? [], body: details.response?.body?.text ?? null };
      return { step, side, before, after: null };
    }
    const body = step.outbound_body ? (details.outbound?.detokenized_body ?? null) : step.body;
    const after: Shape = { headers: step.headers ?? before.headers, body: body === undefined ? before.body : body };
    shape = after;
    return { step, side, before, after: { changedHeaders: step.headers !== undefined, changedBody: body !== undefined && body !== null, shape: after } };
  });
}

const nameOf = (step: Step, side: string) => (step.step === 'code' ? (side === 'request' ? 'Request code' : 'Response code') : (STEP_NAMES[step.step] ?? step.step));

/** One step as a trace shows it: its name, duration and note, what it changed or made, and its code's log lines. */
export interface ShownStep {
  name: string;
  ms: number;
  note?: string;
  content: ReactNode;
  logs?: readonly string[];
}

/**
 * A call's steps in order (a proxy's pipeline, a react), under a title; `label` names the list. Values the call
 * detokenized arrive masked from the engine; nothing here can show more.
 */
export function TraceSteps({ title, label, steps }: { title: ReactNode; label: string; steps: readonly ShownStep[] }) {
  const id = useId();
  return (
    <section className="pipeline-trace" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      {steps.length === 0 ? (
        <p className="muted">The call stopped before any step ran: see why above.</p>
      ) : (
        <ol className="trace-steps" aria-label={label}>
          {steps.map(({ name, ms, note, content, logs }, i) => (
            <li key={i} className="trace-step">
              <p className="trace-step-head">
                <strong>
                  {i + 1}. {name}
                </strong>
                <span className="muted">{formatMs(ms)}</span>
                {note && <span className="trace-step-note">{note}</span>}
              </p>
              {content}
              {logs && logs.length > 0 && (
                <ul className="trace-logs" aria-label={`Log lines of step ${i + 1}, ${name}`}>
                  {logs.map((line, j) => (
                    <li key={j}>{line}</li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/**
 * A pre-configured proxy's pipeline as one call went through it: each step in order with its duration, note, what it
 * changed (headers and body, before → after) and its code's log lines.
 */
export function PipelineTrace({ entry, details }: { entry: HistoryEntry; details: ProxyDetails }) {
  const prefix = useHeaderPrefix();
  if (!details.trace || !details.proxy) return null;
  const steps = stepsWithShapes(entry, details, prefix).map(({ step, side, before, after }, i): ShownStep => {
    const name = nameOf(step, side);
    return {
      name,
      ms: step.ms,
      note: step.note,
      logs: step.logs,
      content: (
        <>
          {after?.changedHeaders && <HeaderDiff before={before.headers} after={after.shape.headers} label={`Headers changed by step ${i + 1}, ${name}`} />}
          {after?.changedBody && <BodyDiff before={before.body} after={after.shape.body!} label={`Body before and after step ${i + 1}, ${name}`} />}
        </>
      ),
    };
  });
  return <TraceSteps title={<>Pipeline of proxy “{details.proxy.name}”</>} label="Pipeline steps" steps={steps} />;
}
