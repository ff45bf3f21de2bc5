/**
 * Body expressions (proxy, /detokenize) start with a token id, which is no Liquid variable:
 * `{{ 8f1c…7f | json: '$.number' }}`, `{{ my-custom_id }}`, `{{ token: <id> | json: '$.data.number' }}`.
 * The head (up to the first `|`, which ids cannot contain) becomes a fixed variable holding the token's
 * data (or, with `token:`, the whole token); Liquid parses and runs the filter chain after it.
 */
import { ExpressionError, brief } from './expression-error';
import type { CompiledExpression } from './liquid-runtime';

/** The variable the head is replaced with; filter arguments cannot name token ids, so nothing else is in scope. */
export const HEAD_VARIABLE = 'token_value';

const ID_FORBIDDEN = /[#/\\+?[\]|&=%<>{}^]/;
const WHOLE_TOKEN = /^token\s*:/;

/** The token id rule (docs/api.md, Tokens): 3–400 characters, none of `# / \ + ? [ ] | & = % < > { } ^`. */
export function isValidTokenId(id: string): boolean {
  return id.length >= 3 && id.length <= 400 && !ID_FORBIDDEN.test(id);
}

export interface TokenReference {
  readonly id: string;
  /** `token:` form: the expression sees the whole token object, not just its data. */
  readonly whole: boolean;
}

export interface TokenExpression extends CompiledExpression {
  readonly ref: TokenReference;
}

/** The Liquid text an expression's filter chain (`| json: '$.number'`, or '' for none) stands for. */
export const liquidTextOf = (filters: string): string => (filters === '' ? HEAD_VARIABLE : `${HEAD_VARIABLE} ${filters}`);

/**
 * Parses a body expression. `compileChain` compiles its filter chain (see liquidTextOf), the same whichever token the
 * head names; errors name `source`.
 */
export function compileTokenExpression(source: string, compileChain: (source: string, filters: string) => CompiledExpression): TokenExpression {
  const inner = source.slice(2, -2);
  const bar = inner.indexOf('|');
  const head = (bar < 0 ? inner : inner.slice(0, bar)).trim();
  const prefix = WHOLE_TOKEN.exec(head);
  const id = prefix ? head.slice(prefix[0].length).trim() : head;
  if (!isValidTokenId(id)) {
    throw new ExpressionError(source, id === '' ? 'no token id before the filters' : `"${brief(id, 40)}" is not a valid token id`);
  }
  const { value, direct } = compileChain(source, bar < 0 ? '' : inner.slice(bar));
  return { source, value, direct, ref: { id, whole: prefix !== null } };
}
