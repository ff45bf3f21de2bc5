import { ensureSyntaxTree, syntaxTree } from '@codemirror/language';
import { linter, type Diagnostic } from '@codemirror/lint';
import type { EditorState, Extension } from '@codemirror/state';

/** How long the parser may take for a check: a larger text is checked as far as it has been parsed. */
const PARSE_BUDGET_MS = 50;

/** What went wrong at an error node, in words: what was found there, or that the code ended early. */
function messageAt(state: EditorState, from: number): string {
  const where = `Syntax error on line ${state.doc.lineAt(Math.min(from, state.doc.length)).number}`;
  if (from >= state.doc.length) return `${where}: the code ends before what it opened is closed (a bracket, a string, a function?)`;
  const found = state.doc.sliceString(from, Math.min(state.doc.length, from + 20)).split('\n')[0].trim();
  return found === '' ? `${where}: unexpected end of line` : `${where}: unexpected “${found}”`;
}

/**
 * Flags JavaScript syntax errors as the user types, from the parse tree's error nodes (never by running the code): the
 * engine refuses code that does not compile when the proxy is saved, this says so before. `onChecked` hears each
 * check's flags, for the page's own summary under the editor.
 */
export function javascriptSyntax(onChecked: (flags: readonly Diagnostic[]) => void): Extension {
  return linter(
    (view) => {
      const tree = ensureSyntaxTree(view.state, view.state.doc.length, PARSE_BUDGET_MS) ?? syntaxTree(view.state);
      const flags: Diagnostic[] = [];
      tree.iterate({
        enter: (node) => {
          if (!node.type.isError) return;
          // An error node is often empty: mark the character it stands before, or the last one at the end.
          const from = Math.min(node.from, Math.max(0, view.state.doc.length - 1));
          const to = Math.max(node.to, Math.min(view.state.doc.length, from + 1));
          // One flag per place: a broken statement makes several nested error nodes.
          if (flags.at(-1)?.from === from) return;
          flags.push({ from, to, severity: 'error', source: 'JavaScript', message: messageAt(view.state, node.from) });
        },
      });
      onChecked(flags);
      return flags;
    },
    { delay: 250 },
  );
}
