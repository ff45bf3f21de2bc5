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
/** `tokenize_transform: 'card'`: the token a pre-configured proxy's tokenize transform made in this call. */
const MADE_TOKEN = /^tokenize_transform\s*:\s*(['"])([A-Za-z0-9_-]{1,100})\1$/;

/** The key under which a token made by a tokenize transform is handed to a render, beside the vault's by id. */
export const madeTokenKey = (identifier: string): string => `tokenize_transform:${identifier}`;

/**
 * `{{ encrypted | json: '$.data.number' }}`: the proxy call's PFX-ENCRYPTED token requests, decrypted. The key is no
 * token id (ids cannot hold `:`), so the root shadows no token.
 */
export const ENCRYPTED_KEY = 'encrypted:';
const ENCRYPTED_ROOT = /^encrypted$/;

/** The token id rule (docs/api.md, Tokens): 3–400 characters, none of `# / \ + ? [ ] | & = % < > { } ^`. */
export function isValidTokenId(id: string): boolean {
  return id.length >= 3 && id.length <= 400 && !ID_FORBIDDEN.test(id);
}

export interface TokenReference {
  /** The token's id; for a token a transform made, its madeTokenKey. */
  readonly id: string;
  /** `token:` form: the expression sees the whole token object, not just its data. */
  readonly whole: boolean;
  /** Made by a tokenize transform in this call, or decrypted from its PFX-ENCRYPTED header: not looked up in the vault. */
  readonly made?: true;
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
  const filters = bar < 0 ? '' : inner.slice(bar);
  if (ENCRYPTED_ROOT.test(head)) {
    const { value, direct } = compileChain(source, filters);
    return { source, value, direct, ref: { id: ENCRYPTED_KEY, whole: true, made: true } };
  }
  const made = MADE_TOKEN.exec(head);
  if (made) {
    const { value, direct } = compileChain(source, filters);
    return { source, value, direct, ref: { id: madeTokenKey(made[2]), whole: true, made: true } };
  }
  const prefix = WHOLE_TOKEN.exec(head);
  const id = prefix ? head.slice(prefix[0].length).trim() : head;
  if (!isValidTokenId(id)) {
    throw new ExpressionError(source, id === '' ? 'no token id before the filters' : `"${brief(id, 40)}" is not a valid token id`);
  }
  const { value, direct } = compileChain(source, filters);
  return { source, value, direct, ref: { id, whole: prefix !== null } };
}
