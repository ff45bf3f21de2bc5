import { useEffect, useMemo, useState } from 'react';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import type { EditorDiagnostics } from '../../components/CodeEditor';
import { draftChecker, type WholeCheckQuery } from './checked-draft';
import { bodyDiagnostics } from './RequestFlags';

/** How long typing waits before the body is checked again. */
const CHECK_AFTER_MS = 300;

/**
 * The engine's flags on an editor's text, as the Composer's editor shows them: `query` (null: nothing to check) is the
 * request the text goes out in, checked a moment after it last changed; its body holds the text from `offset` on.
 */
export function useEngineFlags(query: WholeCheckQuery | null, text: string, offset = 0): EditorDiagnostics | null {
  const api = useWorkbenchApi();
  const check = useMemo(() => draftChecker(api.checkRequest), [api]);
  const [diagnostics, setDiagnostics] = useState<EditorDiagnostics | null>(null);
  // By value: the page makes the query anew at each render.
  const asked = JSON.stringify(query);
  useEffect(() => {
    const wanted = JSON.parse(asked) as WholeCheckQuery | null;
    if (wanted === null || wanted.body === null) return;
    const timer = setTimeout(() => {
      check(wanted).then(
        (result) => setDiagnostics(bodyDiagnostics({ body: text, result }, offset)),
        () => setDiagnostics(null),
      );
    }, CHECK_AFTER_MS);
    return () => clearTimeout(timer);
  }, [check, asked, text, offset]);
  return diagnostics;
}
