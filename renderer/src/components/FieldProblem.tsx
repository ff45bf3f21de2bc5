import type { ReactNode } from 'react';

/** The engine's (or the page's) refusals of a definition's fields (a proxy's, a reactor's), by the engine's field paths (`request_transforms[0].code`). */
export type FieldProblems = Readonly<Record<string, readonly string[]>>;

/** The id of the sentence that says what is wrong with the field at `path`. */
export const problemId = (path: string) => `field-problem-${path.replace(/[^\w-]/g, '_')}`;

/** What a field's input says of its problem, so a screen reader reads it with the field. */
export function invalidProps(problems: FieldProblems, path: string) {
  return problems[path] ? { 'aria-invalid': true, 'aria-describedby': problemId(path) } : {};
}

/** What is wrong with the field at `path`, said under it; nothing when nothing is. */
export function FieldProblem({ problems, path }: { problems: FieldProblems; path: string }) {
  const said = problems[path];
  if (!said) return null;
  return (
    // Focusable, so a refusal of a field that is no input (the code editor) can take the focus.
    <p className="problem" id={problemId(path)} tabIndex={-1}>
      {said.join(' ')}
    </p>
  );
}

/** One labelled text field of a definition, with what the engine said of it. */
export function TextField({ label, path, value, problems, onChange, hint }: { label: string; path: string; value: string; problems: FieldProblems; onChange: (value: string) => void; hint?: ReactNode }) {
  return (
    <div className="proxy-field">
      <label>
        <span>{label}</span>
        <input type="text" spellCheck={false} value={value} onChange={(event) => onChange(event.target.value)} {...invalidProps(problems, path)} />
      </label>
      {hint && <p className="muted proxy-hint">{hint}</p>}
      <FieldProblem problems={problems} path={path} />
    </div>
  );
}
