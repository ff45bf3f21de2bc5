import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { EditorState, type Extension, type Text } from '@codemirror/state';
import { hoverTooltip, type Tooltip } from '@codemirror/view';
import { EXPRESSION_FILTERS, filterSignature } from '../../../../shared/expressions/filters';
import type { ExpressionPreview, TokenSuggestion } from '../../../../shared/workbench/composer-contract';
import type { WorkbenchApi } from '../../../../shared/workbench/methods';

/** What the editor's help needs to know of the request around the body, read when it is asked. */
export interface AssistContext {
  /** The application the request would be sent as; null for none or a remote target. */
  applicationId: string | null;
  contentType: string | null;
  /** A remote target's name: its tokens are not this engine's. */
  remote: string | null;
}

const TOKENS_SHOWN = 20;
/** How far back from the cursor an open `{{` is looked for: a token id is at most 400 characters, with filters after. */
const LOOK_BACK = 2000;

/** The `{{` the position is inside of (its offset), or -1 when none is open there. */
function openExpressionAt(doc: Text, pos: number): number {
  const from = Math.max(0, pos - LOOK_BACK);
  const before = doc.sliceString(from, pos);
  const open = before.lastIndexOf('{{');
  return open === -1 || before.includes('}}', open) ? -1 : from + open;
}

const maskedText = (masked: unknown) => (masked === null || masked === undefined ? 'redacted' : typeof masked === 'string' ? masked : JSON.stringify(masked));

/** A small definition list, built as nodes: token data never goes through innerHTML. */
function facts(title: string, rows: [string, string][]): HTMLElement {
  const box = document.createElement('div');
  box.className = 'expression-facts';
  const heading = document.createElement('strong');
  heading.textContent = title;
  const list = document.createElement('dl');
  for (const [term, value] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    list.append(dt, dd);
  }
  box.append(heading, list);
  return box;
}

function tokenFacts(token: TokenSuggestion): [string, string][] {
  const rows: [string, string][] = [
    ['Type', token.type],
    ['Masked', maskedText(token.masked)],
    ['Containers', token.containers.join(', ')],
  ];
  const metadata = Object.entries(token.metadata);
  if (metadata.length > 0) rows.push(['Metadata', metadata.map(([key, value]) => `${key}: ${value}`).join(', ')]);
  if (token.expires_at) rows.push(['Expires', new Date(token.expires_at).toLocaleString()]);
  return rows;
}

function tokenCompletion(token: TokenSuggestion): Completion {
  return {
    label: token.id,
    detail: `${token.type} · ${maskedText(token.masked)}`,
    info: () => facts(token.id, tokenFacts(token)),
    type: 'variable',
    apply: `${token.id} `,
  };
}

const FILTER_COMPLETIONS: readonly Completion[] = EXPRESSION_FILTERS.map((filter, rank) => ({
  label: filter.name,
  detail: filterSignature(filter) === filter.name ? undefined : filterSignature(filter).slice(filter.name.length),
  info: filter.description,
  type: 'function',
  apply: filterSignature(filter),
  // The vault's own filters first, in the catalog's order.
  boost: -rank / EXPRESSION_FILTERS.length,
}));

/**
 * Completion inside `{{ … }}`: before the first `|`, tokens of this engine's vault (searched by the engine, by
 * anything they show); after a `|`, the filters of the expression language with their arguments.
 */
function completeExpression(api: WorkbenchApi, context: () => AssistContext) {
  return async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    const open = openExpressionAt(ctx.state.doc, ctx.pos);
    if (open === -1) return null;
    const inside = ctx.state.doc.sliceString(open + 2, ctx.pos);
    const bar = inside.lastIndexOf('|');
    if (bar !== -1) {
      const after = inside.slice(bar + 1);
      // Past the filter's name, in its arguments: nothing to offer.
      if (after.includes(':')) return null;
      const word = /\w*$/.exec(after)![0];
      return { from: ctx.pos - word.length, options: FILTER_COMPLETIONS, validFor: /^\w*$/ };
    }
    const word = /[^\s{]*$/.exec(inside)![0];
    if (context().remote !== null) return null;
    const tokens = await api.suggestTokens({ text: word, limit: TOKENS_SHOWN }).catch(() => null);
    if (!tokens || ctx.aborted) return null;
    // The engine found and ordered them, by what the user typed in any of their fields: no filtering here.
    return { from: ctx.pos - word.length, options: tokens.map(tokenCompletion), filter: false };
  };
}

function previewFacts(preview: NonNullable<ExpressionPreview>, context: AssistContext): HTMLElement {
  const rows: [string, string][] = preview.token ? tokenFacts(preview.token) : [];
  if (preview.produces !== null) rows.push(['Writes (masked)', preview.produces]);
  if (preview.problem) rows.push(['Problem', preview.problem]);
  if (preview.access) rows.push(['Access', preview.access]);
  return facts(preview.token ? preview.token.id : 'Expression', context.remote ? [['Sent to', `${context.remote}: its vault is not known here`]] : rows);
}

/** Hovering an expression shows its token, masked, and what it would write, computed from the masked data. */
function expressionHover(api: WorkbenchApi, context: () => AssistContext) {
  return hoverTooltip(async (view, pos): Promise<Tooltip | null> => {
    const line = view.state.doc.lineAt(pos);
    // Only where an expression may be: a call for every hover over plain text would be wasted.
    if (openExpressionAt(view.state.doc, pos) === -1 && !/\{\{[^]*?\}\}/.test(line.text)) return null;
    const now = context();
    const preview = await api
      .previewExpression({ application_id: now.applicationId, content_type: now.contentType, body: view.state.doc.toString(), at: pos })
      .catch(() => null);
    if (!preview) return null;
    return { pos: preview.from, end: preview.to, above: true, create: () => ({ dom: previewFacts(preview, now) }) };
  });
}

/** The editor's help with expressions: completion and hovers, each asking the engine. */
export function expressionAssist(api: WorkbenchApi, context: () => AssistContext): Extension {
  // One source object: the completion keeps a query going only while the source that started it is still offered.
  const data = [{ autocomplete: completeExpression(api, context) }];
  return [EditorState.languageData.of(() => data), expressionHover(api, context)];
}
