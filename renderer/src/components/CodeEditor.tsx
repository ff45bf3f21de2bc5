import { javascript } from '@codemirror/lang-javascript';
import { json } from '@codemirror/lang-json';
import { xml } from '@codemirror/lang-xml';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState, Prec, StateEffect, StateField, type Extension } from '@codemirror/state';
import { Decoration, EditorView, keymap, MatchDecorator, ViewPlugin, type DecorationSet, type ViewUpdate } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { basicSetup } from 'codemirror';
import { editorCompletion } from './editor-completion';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import { STYLE_NONCE_META } from '../../../shared/content-security-policy';
import './code-editor.css';

export type EditorLanguage = 'json' | 'xml' | 'text' | 'javascript';

/** A stretch of the text to point the user at (what a failure names). */
export interface MarkedRange {
  from: number;
  to: number;
}

/** What a page may do to the editor besides giving it text. */
export interface CodeEditorHandle {
  /** Selects a range and scrolls it into view, with the focus in the editor. */
  select(from: number, to: number): void;
}

interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  language: EditorLanguage;
  /** The editor's accessible name. */
  label: string;
  /** Ctrl/⌘+Enter inside the editor (which would otherwise insert a line). */
  onSubmit?: () => void;
  /** Escape inside the editor, when nothing of the editor's own (a completion, a search) takes it. */
  onEscape?: () => boolean;
  /** Marked until the text changes or the page marks others. */
  marked?: readonly MarkedRange[];
  /** The cursor moved or the selection changed (the main one, as offsets). */
  onSelectionChange?: (from: number, to: number) => void;
  /** More of CodeMirror (completion sources, hovers), fixed when the editor is made. */
  extensions?: Extension;
  /** Flags on a text (lint diagnostics, with CodeMirror's panel and F8); shown while the editor holds that text. */
  diagnostics?: EditorDiagnostics | null;
  /** Shown, not edited: the text can be read, selected and copied, with the focus in it, but not changed. Fixed when the editor is made. */
  readOnly?: boolean;
}

/** Diagnostics and the text they were made for: ones for another text would point at the wrong places. */
export interface EditorDiagnostics {
  text: string;
  items: readonly Diagnostic[];
}

/** The page's style nonce (see content-security-policy.ts): CodeMirror injects its styles with it. */
const styleNonce = () => document.querySelector<HTMLMetaElement>(`meta[name="${STYLE_NONCE_META}"]`)?.content ?? '';

/** Each `{{ … }}` marked, so the reader sees at once what the proxy replaces. */
const expressionMarks = new MatchDecorator({ regexp: /\{\{[\s\S]*?\}\}/g, decoration: Decoration.mark({ class: 'cm-expression' }) });
const highlightExpressions = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = expressionMarks.createDeco(view);
    }
    update(update: ViewUpdate) {
      this.decorations = expressionMarks.updateDeco(update, this.decorations);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

/**
 * Text put over a selection the editor has not read yet (set and replaced in one step, as automation such as
 * Playwright's `fill` does) is put in by the editor. Chromium's own editing would keep the replaced text's look (the
 * highlighted bracket's background, still drawn for the old cursor) as a `style` attribute, which the CSP refuses.
 */
const replaceUnreadSelection = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const selection = document.getSelection();
    if (event.inputType !== 'insertText' || event.isComposing || event.data === null) return false;
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return false;
    const range = selection.getRangeAt(0);
    if (!view.contentDOM.contains(range.commonAncestorContainer)) return false;
    const from = view.posAtDOM(range.startContainer, range.startOffset);
    const to = view.posAtDOM(range.endContainer, range.endOffset);
    const known = view.state.selection.main;
    if (from === known.from && to === known.to) return false;
    event.preventDefault();
    view.dispatch({ changes: { from, to, insert: event.data }, selection: { anchor: from + event.data.length }, userEvent: 'input.type', scrollIntoView: true });
    return true;
  },
});

const setMarked = StateEffect.define<readonly MarkedRange[]>();
const culpritMark = Decoration.mark({ class: 'cm-culprit' });
/** The ranges a page marks: mapped through edits, dropped with the edit that touches them. */
const markedRanges = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, transaction) {
    for (const effect of transaction.effects) {
      if (effect.is(setMarked)) return Decoration.set(effect.value.map(({ from, to }) => culpritMark.range(from, to)), true);
    }
    return transaction.docChanged ? Decoration.none : marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** Syntax colours from the theme's variables, so the editor follows light and dark with the rest of the page. */
const syntaxColours = HighlightStyle.define([
  { tag: [tags.string, tags.attributeValue], color: 'var(--syntax-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--syntax-literal)' },
  { tag: [tags.propertyName, tags.tagName, tags.attributeName], color: 'var(--syntax-name)' },
  { tag: [tags.comment], color: 'var(--muted)', fontStyle: 'italic' },
  { tag: tags.keyword, color: 'var(--syntax-name)' },
  { tag: tags.invalid, color: 'var(--error)' },
]);

/** A read-only editor still takes the focus (Tab), so a keyboard user can read and select its text. */
const readOnlyText: Extension = [EditorState.readOnly.of(true), EditorView.editable.of(false), EditorView.contentAttributes.of({ tabindex: '0', 'aria-readonly': 'true' })];

const NOTHING_MARKED: readonly MarkedRange[] = [];
const NO_EXTENSIONS: Extension = [];
const NO_DIAGNOSTICS: readonly Diagnostic[] = [];

const LANGUAGES: Record<EditorLanguage, () => Extension> = { json: () => json(), xml: () => xml(), text: () => [], javascript: () => javascript() };

/** CodeMirror 6 for request bodies: the language by content type, expressions marked, theme colours, strict CSP. */
export const CodeEditor = forwardRef<CodeEditorHandle, CodeEditorProps>(function CodeEditor(
  { value, onChange, language, label, onSubmit, onEscape, marked = NOTHING_MARKED, onSelectionChange, extensions = NO_EXTENSIONS, diagnostics = null, readOnly = false },
  ref,
) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const languageSlot = useRef(new Compartment());
  // The caller's extensions close over what it knows now (the application a hover asks as): a new set replaces the old.
  const extensionsSlot = useRef(new Compartment());
  // The latest callbacks, read by the editor's keymap and listener, which are made once.
  const callbacks = useRef({ onChange, onSubmit, onEscape, onSelectionChange });
  callbacks.current = { onChange, onSubmit, onEscape, onSelectionChange };
  // The editor's text as one string, made once per change: comparing it with the text given back is then free when
  // it is the same string, where reading the editor's document again would copy a large body at every keystroke.
  const text = useRef(value);

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          EditorView.cspNonce.of(styleNonce()),
          Prec.highest(
            keymap.of([
              { key: 'Mod-Enter', run: () => (callbacks.current.onSubmit?.(), true) },
              { key: 'Escape', run: () => callbacks.current.onEscape?.() ?? false },
            ]),
          ),
          // Before basicSetup, whose completion keymap would otherwise see Enter first.
          editorCompletion,
          basicSetup,
          syntaxHighlighting(syntaxColours),
          languageSlot.current.of(LANGUAGES[language]()),
          highlightExpressions,
          markedRanges,
          replaceUnreadSelection,
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) {
              text.current = update.state.doc.toString();
              callbacks.current.onChange(text.current);
            }
            const { from, to } = update.state.selection.main;
            if (update.selectionSet) callbacks.current.onSelectionChange?.(from, to);
          }),
          extensionsSlot.current.of(extensions),
          readOnly ? readOnlyText : NO_EXTENSIONS,
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
    // The editor is made once; value and language changes are dispatched below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor || text.current === value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: languageSlot.current.reconfigure(LANGUAGES[language]()) });
  }, [language]);

  useEffect(() => {
    view.current?.dispatch({ effects: extensionsSlot.current.reconfigure(extensions) });
  }, [extensions]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const length = editor.state.doc.length;
    editor.dispatch({ effects: setMarked.of(marked.filter(({ from, to }) => from < to && to <= length)) });
  }, [marked]);

  useEffect(() => {
    const editor = view.current;
    // Flags made for an older text would point at the wrong places: the editor keeps its own, moved along with the
    // edits since, until flags for the text as it is arrive.
    if (!editor || (diagnostics && diagnostics.text !== text.current)) return;
    editor.dispatch(setDiagnostics(editor.state, diagnostics?.items ?? NO_DIAGNOSTICS));
  }, [diagnostics]);

  useImperativeHandle(ref, () => ({
    select(from, to) {
      const editor = view.current;
      if (!editor) return;
      editor.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
      editor.focus();
    },
  }));

  return <div className="code-editor" ref={host} />;
});
