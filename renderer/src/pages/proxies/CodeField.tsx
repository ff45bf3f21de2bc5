import type { Diagnostic } from '@codemirror/lint';
import { useMemo, useState } from 'react';
import { CodeEditor } from '../../components/CodeEditor';
import { javascriptSyntax } from './javascript-syntax';
import type { RuntimeImage } from './proxy-draft';

/**
 * A code transform's JavaScript: CodeMirror with its syntax errors flagged as the user types (F8 goes to the next), a
 * sentence under it saying the first, and the runtime's function shapes to start from.
 */
export function CodeField({
  code,
  image,
  templates,
  label,
  onChange,
  onSave,
  readOnly,
}: {
  code: string;
  image: RuntimeImage;
  /** The function shapes to start from, by runtime, and what they are of ("request", "reactor"). */
  templates: { of: string; code: Record<RuntimeImage, string> };
  label: string;
  onChange: (code: string) => void;
  onSave: () => void;
  /** Shown, not edited: no templates, and the editor read-only. */
  readOnly: boolean;
}) {
  const [flags, setFlags] = useState<readonly Diagnostic[]>([]);
  // Made once per field: the editor takes its extensions when it is made.
  const syntax = useMemo(() => javascriptSyntax((found) => setFlags(found)), []);
  const first = flags[0];
  return (
    <div className="proxy-code">
      {!readOnly && (
        <div className="proxy-code-templates" role="group" aria-label={`Templates for ${label.toLowerCase()}`}>
          <span className="muted">Start from</span>
          {(Object.keys(templates.code) as RuntimeImage[]).map((shape) => (
            <button key={shape} type="button" className="small" onClick={() => onChange(templates.code[shape])}>
              the {shape} {templates.of} template
            </button>
          ))}
          <span className="muted">(Ctrl+Z in the editor takes it back)</span>
        </div>
      )}
      <CodeEditor
        label={label}
        value={code}
        language="javascript"
        onChange={onChange}
        onSubmit={onSave}
        extensions={syntax}
        readOnly={readOnly}
      />
      <p className={first ? 'problem proxy-syntax' : 'muted proxy-syntax'} role="status">
        {first
          ? `${first.message}${flags.length > 1 ? ` (and ${flags.length - 1} more; F8 goes to each)` : ''}. Fix it before saving: the engine refuses code that does not compile.`
          : `No syntax errors. Runs as ${image === 'node22' ? 'node22' : 'node-bt'}: the engine runs it only when it is called.`}
      </p>
    </div>
  );
}
