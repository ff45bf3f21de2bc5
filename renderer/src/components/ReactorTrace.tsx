import type { ReactorDetails } from '../../../shared/workbench/history-contract';
import { TraceSteps } from './PipelineTrace';
import { diffable } from './trace-diff';

const STEP_NAMES: Record<string, string> = { args: 'Args in', code: 'Code', tokenize: 'Tokenize', result: 'Result out' };

/**
 * A react as it ran: the args in after detokenization, the code with its log lines, the tokens its `tokenize` made,
 * the result out, each with its duration. Detokenized values arrive masked from the engine.
 */
export function ReactorTrace({ details }: { details: ReactorDetails }) {
  const steps = details.trace.map((step, i) => {
    const name = STEP_NAMES[step.step] ?? step.step;
    const note = step.step === 'result' ? `status ${step.note}` : step.note;
    return {
      name,
      ms: step.ms,
      note,
      logs: step.logs,
      content: typeof step.body === 'string' && (
        <pre className="code-block trace-body" aria-label={`Body of step ${i + 1}, ${name}`} tabIndex={0}>
          {diffable(step.body)}
        </pre>
      ),
    };
  });
  return <TraceSteps title={<>Reactor “{details.name}”{details.async_request_id && <span className="muted"> · async request {details.async_request_id}</span>}</>} label="Reactor steps" steps={steps} />;
}
