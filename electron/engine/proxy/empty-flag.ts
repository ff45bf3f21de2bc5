/**
 * The words of a check's warning about an expression the proxy would write as nothing: why (from the expression
 * engine's EmptyCause), what lies where a JSONPath stops matching by field names only, the nearest field, and what the
 * proxy would send in its place. No value of the token's data is in them.
 */
import type { RequestFlag } from '../../../shared/workbench/composer-contract';
import type { EmptyCause, TokenExpression, ValueShape } from '../expressions';

export const CHECK_FILTERS = "Check the filters against the token's data: hover the expression to see it, masked.";

/** A token id short enough for a sentence; the flag points at the expression that holds it whole. */
const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…` : id);

const KIND_WORDS: Record<Extract<ValueShape, { kind: string }>['kind'], string> = {
  text: 'text',
  number: 'a number',
  boolean: 'true or false',
  list: 'a list',
  null: 'null',
};

/** What lies where a JSONPath stops matching, by field names only: `$` is what the path was applied to. */
function whatIsAt(reached: string, shape: ValueShape): string {
  const it = reached === '$' ? ', which' : `: ${reached}`;
  if ('kind' in shape) return `${it} is ${KIND_WORDS[shape.kind]}, with no fields`;
  if (shape.fields.length === 0) return `${it} has no fields`;
  return reached === '$' ? `, whose fields are ${shape.fields.join(', ')}` : `: ${reached} has the fields ${shape.fields.join(', ')}`;
}

/** The flag for an expression that writes nothing: why, by the token's field names, and what goes out in its place. */
export function emptyFlag(expression: TokenExpression, tokenType: string, written: string, cause: EmptyCause): Pick<RequestFlag, 'kind' | 'message' | 'advice'> {
  const { id } = expression.ref;
  const named = `${tokenType} token ${shortId(id)}`;
  const sends = `the proxy would send ${written === '' ? 'nothing' : written} for it`;
  const quoted = expression.source.replace(id, shortId(id));
  if (cause.kind === 'filters') return { kind: 'renders_empty', message: `${quoted}: it renders empty over ${named}; ${sends}`, advice: CHECK_FILTERS };
  const over = { data: `the data of ${named}`, token: named, filtered: 'what the filters before it give' }[cause.applied];
  if (cause.kind === 'empty_value') {
    return { kind: 'renders_empty', message: `${quoted}: ${cause.path} selects an empty value in ${over}; ${sends}`, advice: 'Give the token a value there, or send another of its fields.' };
  }
  const advice = cause.nearest
    ? `Did you mean ${cause.nearest}?`
    : cause.applied === 'data' && cause.reached === '$' && !('fields' in cause.shape)
      ? `Use the data as it is, without the json filter: {{ ${id} }}.`
      : `Use a path to one of its fields. ${CHECK_FILTERS}`;
  return { kind: 'json_path_no_match', message: `${quoted}: ${cause.path} matches nothing in ${over}${whatIsAt(cause.reached, cause.shape)}; ${sends}`, advice };
}
