import { useMemo } from 'react';
import type { EditorDiagnostics } from '../../components/CodeEditor';

/** Where JSON.parse says it stopped ("… at position 12 …"), or the end of the text. */
function positionOf(message: string, text: string): number {
  const at = /position (\d+)/.exec(message);
  return at ? Math.min(Number(at[1]), text.length) : text.length;
}

/**
 * The args' flags: JSON the route would refuse, at the place the parser stopped. The engine's own check of expressions
 * (tokens unknown or out of the caller's reach) covers proxy requests only, so a react's are found when it runs.
 */
export function useArgsChecks(args: string): EditorDiagnostics {
  return useMemo(() => argsDiagnostics(args), [args]);
}

function argsDiagnostics(args: string): EditorDiagnostics {
  try {
    JSON.parse(args);
    return { text: args, items: [] };
  } catch (error) {
    const from = positionOf((error as Error).message, args);
    const message = `The args are not JSON: ${(error as Error).message}. The route answers such a body with a 400.`;
    return { text: args, items: [{ from, to: Math.min(from + 1, args.length), severity: 'error', message }] };
  }
}
