import { useEffect, useMemo, useRef } from 'react';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { CodeEditor, type CodeEditorHandle, type EditorLanguage, type MarkedRange } from '../../components/CodeEditor';
import { useComposerStore, type BodyMode } from '../../state/composer-store';
import { cancelComposed, sendComposed } from './composer-actions';
import { expressionAssist } from './expression-assist';
import { assistContext } from './request-checks';
import { useBodyDiagnostics } from './RequestFlags';
import { BODY_TYPES } from './wire-request';

const BODY_MODES: Record<BodyMode, { label: string; language: EditorLanguage }> = {
  json: { label: 'JSON', language: 'json' },
  form: { label: 'Form', language: 'text' },
  text: { label: 'Text', language: 'text' },
  xml: { label: 'XML', language: 'xml' },
  none: { label: 'None', language: 'text' },
};


/** The body's mode and its editor, with expression completion, the engine's flags, and what the last answer marked. */
export function RequestBody({ marked }: { marked: readonly MarkedRange[] }) {
  const api = useWorkbenchApi();
  const body = useComposerStore((state) => state.draft.body);
  const mode = useComposerStore((state) => state.draft.bodyMode);
  const edit = useComposerStore((state) => state.edit);
  const pointAt = useComposerStore((state) => state.pointAt);
  const selectBody = useComposerStore((state) => state.selectBody);
  const editor = useRef<CodeEditorHandle>(null);
  const assist = useMemo(() => expressionAssist(api, assistContext), [api]);
  const diagnostics = useBodyDiagnostics();
  useEffect(() => {
    if (pointAt) editor.current?.select(pointAt.from, pointAt.to);
  }, [pointAt]);
  return (
    <div className="body-editor">
      <label className="body-mode">
        Body
        <select value={mode} onChange={(event) => edit({ bodyMode: event.target.value as BodyMode })}>
          {(Object.keys(BODY_MODES) as BodyMode[]).map((option) => (
            <option key={option} value={option}>
              {BODY_MODES[option].label}
            </option>
          ))}
        </select>
        {BODY_TYPES[mode] && <span className="muted">sent as {BODY_TYPES[mode]} unless a header says otherwise</span>}
      </label>
      {mode !== 'none' && (
        <CodeEditor
          ref={editor}
          label="Request body"
          value={body}
          language={BODY_MODES[mode].language}
          onChange={(value) => edit({ body: value })}
          onSubmit={() => void sendComposed(api)}
          onEscape={() => {
            if (!useComposerStore.getState().sending) return false;
            cancelComposed(api);
            return true;
          }}
          marked={marked}
          onSelectionChange={selectBody}
          extensions={assist}
          diagnostics={diagnostics}
        />
      )}
    </div>
  );
}
