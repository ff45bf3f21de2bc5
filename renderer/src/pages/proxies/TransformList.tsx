import { useState, type ReactNode } from 'react';
import { REQUEST_TRANSFORM_TYPES, TRANSFORM_TYPES, type TransformType } from '../../../../shared/workbench/proxy-contract';
import { CodeEditor } from '../../components/CodeEditor';
import { CodeField } from './CodeField';
import { RuntimeFields } from './RuntimeFields';
import { FieldProblem, invalidProps, TextField, type FieldProblems } from '../../components/FieldProblem';
import { CODE_TEMPLATES, newTransform, transformPath, type Side, type TransformDraft } from './proxy-draft';

/** Each type in words, as the chooser offers it. */
const TYPE_WORDS: Record<TransformType, string> = {
  code: 'code: JavaScript you write',
  tokenize: 'tokenize: make a token from the body',
  mask: 'mask: hide matches in the answer',
  append_json: 'append_json: set a member of the JSON answer',
  append_text: 'append_text: add text to the answer',
  append_header: 'append_header: set a header of the answer',
};

interface FieldsProps {
  transform: TransformDraft;
  side: Side;
  index: number;
  problems: FieldProblems;
  change: (patch: Partial<TransformDraft>) => void;
  onSave: () => void;
  /** Shown, not edited: a proxy of the proxies folder, which only its file changes. */
  readOnly: boolean;
}

/** The fields a transform's type takes (docs/api.md, Transforms). */
function TransformFields({ transform, side, index, problems, change, onSave, readOnly }: FieldsProps) {
  const name = `${side} transform ${index + 1}`;
  const path = (field: string) => transformPath(side, index, field);
  const text = (label: string, field: keyof TransformDraft, at: string, hint?: ReactNode) => (
    <TextField label={`${label} of ${name}`} path={path(at)} value={transform[field]} problems={problems} onChange={(value) => change({ [field]: value })} hint={hint} />
  );
  switch (transform.type) {
    case 'code':
      return (
        <>
          <RuntimeFields
            of={name}
            runtime={transform}
            change={change}
            timeout={{ max: 30, invalid: invalidProps(problems, path('options.runtime.timeout')) }}
          />
          <FieldProblem problems={problems} path={path('options.runtime.timeout')} />
          <FieldProblem problems={problems} path={path('options.runtime')} />
          <CodeField
            code={transform.code}
            image={transform.image}
            templates={{ of: side, code: { 'node-bt': CODE_TEMPLATES['node-bt'][side], node22: CODE_TEMPLATES.node22[side] } }}
            label={`Code of ${name}`}
            onChange={(code) => change({ code })}
            onSave={onSave}
            readOnly={readOnly}
          />
          <FieldProblem problems={problems} path={path('code')} />
        </>
      );
    case 'tokenize':
      return (
        <>
          {text('Identifier', 'identifier', 'options.identifier', <>Other transforms and the body read its token as <code>{'{{ tokenize_transform: \'name\' | json: \'$.id\' }}'}</code>.</>)}
          <div className="proxy-field">
            <CodeEditor label={`Token request of ${name}`} value={transform.token} language="json" onChange={(token) => change({ token })} onSubmit={onSave} readOnly={readOnly} />
            <p className="muted proxy-hint">A POST /tokens body; its strings are templates over {side === 'request' ? <code>req</code> : <code>res</code>}.</p>
            <FieldProblem problems={problems} path={path('options.token')} />
          </div>
        </>
      );
    case 'mask':
      return (
        <>
          <div className="proxy-inline">
            <label>
              <span>Matcher of {name}</span>
              <select value={transform.matcher} onChange={(event) => change({ matcher: event.target.value as TransformDraft['matcher'] })}>
                <option value="chase_stratus_pan">chase_stratus_pan: every card number</option>
                <option value="regex">regex: the capture groups of an expression</option>
              </select>
            </label>
          </div>
          {transform.matcher === 'regex' && text('Expression', 'expression', 'expression')}
          {text('Replacement', 'replacement', 'replacement', 'One character, repeated to the length of what it hides.')}
        </>
      );
    case 'append_json':
      return (
        <>
          {text('Location', 'location', 'options.location', <>A JSONPath of member names: <code>$.a.b</code>.</>)}
          {text('Value', 'value', 'options.value', <>A template over <code>res</code>, <code>transform_identifier</code> and <code>proxy.config</code>.</>)}
        </>
      );
    case 'append_text':
      return text('Value', 'value', 'options.value');
    case 'append_header':
      return (
        <>
          {text('Header name', 'location', 'options.location')}
          {text('Value', 'value', 'options.value')}
        </>
      );
  }
}

/**
 * One side's transforms, in the order they run: each with its type's fields, moved up and down or removed with its
 * own buttons, and a type chooser to add another at the end.
 */
export function TransformList({
  side,
  transforms,
  problems,
  onChange,
  onSave,
  readOnly = false,
}: {
  side: Side;
  transforms: readonly TransformDraft[];
  problems: FieldProblems;
  onChange: (transforms: TransformDraft[]) => void;
  onSave: () => void;
  /** Shown, not edited: no buttons to move, remove or add transforms, and the editors read-only. */
  readOnly?: boolean;
}) {
  const types = side === 'request' ? REQUEST_TRANSFORM_TYPES : TRANSFORM_TYPES;
  const [adding, setAdding] = useState<TransformType>(types[0]);
  const title = side === 'request' ? 'Request transforms' : 'Response transforms';
  const typeOptions = types.map((type) => (
    <option key={type} value={type}>
      {TYPE_WORDS[type]}
    </option>
  ));
  const move = (from: number, to: number) => {
    const next = [...transforms];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved);
    onChange(next);
  };
  const change = (at: number, patch: Partial<TransformDraft>) => onChange(transforms.map((t, i) => (i === at ? { ...t, ...patch } : t)));
  const listProblem = problems[`${side}_transforms`];
  return (
    <fieldset className="proxy-transforms" aria-label={title}>
      <legend>{title}</legend>
      <p className="muted proxy-hint">
        {side === 'request'
          ? 'Tokenize transforms run first, then detokenization, then the code transform, before the request leaves.'
          : 'Run in this order on a 2xx answer only, each over what the one before left.'}
      </p>
      {listProblem && <p className="problem">{listProblem.join(' ')}</p>}
      {transforms.length > 0 && (
        <ol className="proxy-transform-list">
          {transforms.map((transform, i) => {
            const name = `${side} transform ${i + 1}`;
            const typePath = transformPath(side, i, 'type');
            return (
              <li key={transform.key} className="proxy-transform" aria-label={`${name[0].toUpperCase()}${name.slice(1)}`}>
                <div className="proxy-transform-head">
                  <label>
                    <span>Type of {name}</span>
                    <select value={transform.type} onChange={(event) => change(i, { ...newTransform(event.target.value as TransformType, side), key: transform.key })} {...invalidProps(problems, typePath)}>
                      {typeOptions}
                    </select>
                  </label>
                  {!readOnly && (
                    <span className="proxy-transform-buttons">
                      <button type="button" className="small" aria-label={`Move ${name} up`} disabled={i === 0} onClick={() => move(i, i - 1)}>
                        ↑
                      </button>
                      <button type="button" className="small" aria-label={`Move ${name} down`} disabled={i === transforms.length - 1} onClick={() => move(i, i + 1)}>
                        ↓
                      </button>
                      <button type="button" className="small" aria-label={`Remove ${name}`} onClick={() => onChange(transforms.filter((_, j) => j !== i))}>
                        Remove
                      </button>
                    </span>
                  )}
                </div>
                <FieldProblem problems={problems} path={typePath} />
                <TransformFields transform={transform} side={side} index={i} problems={problems} change={(patch) => change(i, patch)} onSave={onSave} readOnly={readOnly} />
              </li>
            );
          })}
        </ol>
      )}
      {!readOnly && (
        <div className="proxy-inline">
          <label>
            <span className="visually-hidden">Type of the new {side} transform</span>
            <select value={adding} onChange={(event) => setAdding(event.target.value as TransformType)}>
              {typeOptions}
            </select>
          </label>
          <button type="button" className="small" onClick={() => onChange([...transforms, newTransform(adding, side)])}>
            Add {side} transform
          </button>
        </div>
      )}
    </fieldset>
  );
}
