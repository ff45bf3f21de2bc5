import { referenceParts, referencesIn } from '../secrets/references';

/**
 * A request as code to copy: a cURL command or a Node.js script (its built-in fetch) that sends exactly the method,
 * URL, headers (in order, repeated ones kept) and body bytes given. The API key is read from the environment
 * ($BT_API_KEY) unless it is given, and a header's `${secret:NAME}` always is ($NAME in upper case): the code never
 * holds a secret's value. Written here rather than by httpsnippet-lite, whose cURL target drops repeated headers and
 * query parameters and form bodies, reads a body starting with @ as a file, and quotes the key so the shell cannot
 * expand it, and whose Node targets need node-fetch and re-serialize JSON bodies.
 */

export interface SnippetRequest {
  method: string;
  /** Absolute: the target's address and the request's path and query. */
  url: string;
  headers: readonly (readonly [string, string])[];
  body: string | null;
  /** Said first, as a comment line (which pre-configured proxy the request goes through). */
  note?: string;
}

/** The header that carries the API key; its value, or null to read it from the environment. */
export interface SnippetKey {
  header: string;
  value: string | null;
}

export const KEY_VARIABLE = 'BT_API_KEY';

/** The variable code reads a pre-configured proxy's key from: a snippet never holds the key itself. */
export const PROXY_KEY_VARIABLE = 'BT_PROXY_KEY';

/**
 * A request to /proxy as code calls a pre-configured proxy: its key header (in place of any the request names), a
 * reference the writers read from $BT_PROXY_KEY, and a note naming the proxy.
 */
export function snippetThroughProxy(proxy: { name: string; key_last4: string }, headers: SnippetRequest['headers'], headerPrefix: string): Pick<SnippetRequest, 'headers' | 'note'> {
  const keyHeader = `${headerPrefix}-PROXY-KEY`;
  return {
    headers: [...headers.filter(([name]) => name.toLowerCase() !== keyHeader.toLowerCase()), [keyHeader, `\${secret:${PROXY_KEY_VARIABLE}}`]],
    note: `Through the pre-configured proxy “${proxy.name}”: set ${PROXY_KEY_VARIABLE} to its key (…${proxy.key_last4}).`,
  };
}

/** A note as one comment line: a line break in it (a proxy's name may hold one) would end the comment. */
const noteLine = (comment: string, note: string | undefined) => (note === undefined ? [] : [`${comment} ${note.replace(/[\r\n\u2028\u2029]+/g, ' ')}`]);

/** What cannot be written as the code asked for (a NUL byte in a shell argument). */
export class SnippetError extends Error {}

/** Whether a header of the request gives the key itself: it is then sent as written, as the engine sends it. */
const givesKey = (request: SnippetRequest, key: SnippetKey) => request.headers.some(([name]) => name.toLowerCase() === key.header.toLowerCase());

/** What the code reads from the environment, in order: each variable's name and what to set it to. */
interface Environment {
  /** Every variable, with what it stands for ("the API key", "the secret stripe-test"). */
  variables: { name: string; meaning: string }[];
  /** The variable of each secret a header refers to, by the secret's name. */
  secrets: Map<string, string>;
  /** The key's variable, when the code reads the key from the environment. */
  key: string | null;
}

/** A secret's variable: its name in upper case with _ for other characters, never starting with a digit. */
const variableOf = (secret: string) => `${/^[0-9]/.test(secret) ? 'SECRET_' : ''}${secret.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;

/** What code for a request with these headers reads from the environment: the key's variable when `readsKey`, and each secret's. */
function environmentOf(headers: SnippetRequest['headers'], readsKey: boolean): Environment {
  const variables = readsKey ? [{ name: KEY_VARIABLE, meaning: 'the API key' }] : [];
  const secrets = new Map<string, string>();
  for (const [, value] of headers) {
    for (const part of referenceParts(value)) {
      if (typeof part === 'string' || secrets.has(part.name)) continue;
      // Names that differ only in case or punctuation (stripe-test, stripe_test) get a variable each.
      const base = variableOf(part.name);
      let name = base;
      for (let n = 2; variables.some((variable) => variable.name === name); n++) name = `${base}_${n}`;
      secrets.set(part.name, name);
      variables.push({ name, meaning: part.name === PROXY_KEY_VARIABLE ? "the proxy's key" : `the secret ${part.name}` });
    }
  }
  return { variables, secrets, key: readsKey ? KEY_VARIABLE : null };
}

const environmentFor = (request: SnippetRequest, key: SnippetKey) => environmentOf(request.headers, !givesKey(request, key) && key.value === null);

/** The variables code for a request reads from the environment, in order, with what each stands for: what to tell its user to set. */
export const snippetVariables = (headers: SnippetRequest['headers'], readsKey: boolean) => environmentOf(headers, readsKey).variables;

/** A header value's literal stretches and its references' variables, each written by the caller's code. */
const headerParts = (value: string, environment: Environment, literal: (text: string) => string, variable: (name: string, next: string | undefined) => string) => {
  const parts = referenceParts(value);
  return parts.map((part, i) => {
    if (typeof part === 'string') return literal(part);
    const next = parts[i + 1];
    return variable(environment.secrets.get(part.name)!, typeof next === 'string' ? next : undefined);
  });
};

/** A POSIX shell word that stands for `text` exactly: single quotes, each quote inside written as '\''. */
export function shellQuote(text: string): string {
  if (text.includes('\0')) throw new SnippetError('A shell argument cannot hold a NUL character');
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Text inside a double-quoted shell word, where the shell expands variables: \ " $ and ` escaped, and ! (which an
 * interactive shell expands from its history even there) in single quotes of its own.
 */
function inDoubleQuotes(text: string): string {
  if (text.includes('\0')) throw new SnippetError('A shell argument cannot hold a NUL character');
  return text.replace(/[\\"$`]/g, '\\$&').replace(/!/g, `"'!'"`);
}

/** A header as a shell word: single-quoted, or double-quoted so the shell puts in the variables of its references. */
function curlHeader(name: string, value: string, environment: Environment): string {
  if (referencesIn(value).length === 0) return shellQuote(`${name}: ${value}`);
  const parts = headerParts(value, environment, inDoubleQuotes, (variable, next) => (next && /^\w/.test(next) ? `\${${variable}}` : `$${variable}`));
  return `"${inDoubleQuotes(`${name}: `)}${parts.join('')}"`;
}

/** curl treats [] and {} in a URL as patterns unless told not to. */
const GLOB_CHARACTERS = /[[\]{}]/;

export function curlSnippet(request: SnippetRequest, key: SnippetKey): string {
  const environment = environmentFor(request, key);
  const lines = [`curl --request ${request.method}`, `--url ${shellQuote(request.url)}`];
  if (GLOB_CHARACTERS.test(request.url)) lines.push('--globoff');
  for (const [name, value] of request.headers) lines.push(`--header ${curlHeader(name, value, environment)}`);
  if (!givesKey(request, key)) {
    // In double quotes, so the shell puts the key in; nothing else in the header needs quoting.
    lines.push(key.value === null ? `--header "${key.header}: $${KEY_VARIABLE}"` : `--header ${shellQuote(`${key.header}: ${key.value}`)}`);
  }
  // --data-raw: the body as is (--data would read a body starting with @ as a file name).
  if (request.body !== null) lines.push(`--data-raw ${shellQuote(request.body)}`);
  // The variables are named only when a secret adds to the key's, which the Composer's own note names.
  const needs = environment.secrets.size === 0 ? '' : `# Reads from the environment: ${environment.variables.map(({ name, meaning }) => `${name} (${meaning})`).join(', ')}\n`;
  return `${noteLine('#', request.note).map((line) => `${line}\n`).join('')}${needs}${lines.join(' \\\n  ')}\n`;
}

/** A JavaScript string literal for any text. */
const literal = (text: string) => JSON.stringify(text);

/** fetch refuses a body on these. */
const NO_BODY_METHODS = new Set(['GET', 'HEAD']);

/** A header value as a JavaScript expression: a string literal, or literals joined with its references' variables. */
const nodeHeaderValue = (value: string, environment: Environment) =>
  referencesIn(value).length === 0 ? literal(value) : headerParts(value, environment, literal, (variable) => `process.env.${variable}`).join(' + ');

export function nodeSnippet(request: SnippetRequest, key: SnippetKey): string {
  const environment = environmentFor(request, key);
  const lines: string[] = ['// Node.js 20 or later, whose fetch is built in.', ...noteLine('//', request.note)];
  if (environment.variables.length > 0) {
    const what = environment.secrets.size === 0 ? 'the API key' : environment.key ? 'the API key and secrets' : 'secrets';
    lines.push(`// Run it with ${what} in the environment: ${environment.variables.map(({ name }) => `${name}=<${name === KEY_VARIABLE ? 'key' : 'secret'}>`).join(' ')} node request.js`);
    for (const { name, meaning } of environment.variables) lines.push(`if (!process.env.${name}) throw new Error(${literal(`Set ${name} to ${meaning}`)});`);
  }
  lines.push('', `const url = ${literal(request.url)};`, 'const options = {', `  method: ${literal(request.method)},`, '  headers: [');
  for (const [name, value] of request.headers) lines.push(`    [${literal(name)}, ${nodeHeaderValue(value, environment)}],`);
  if (!givesKey(request, key)) lines.push(`    [${literal(key.header)}, ${key.value === null ? `process.env.${KEY_VARIABLE}` : literal(key.value)}],`);
  lines.push('  ],');
  if (request.body !== null && NO_BODY_METHODS.has(request.method)) {
    lines.push(`  // fetch sends no body with ${request.method}: the request's body is left out.`);
  } else if (request.body !== null) {
    lines.push(`  body: ${literal(request.body)},`);
  }
  lines.push(
    '};',
    '',
    'fetch(url, options).then(',
    '  async (response) => {',
    '    console.log(response.status, response.statusText);',
    '    console.log(await response.text());',
    '  },',
    '  (error) => {',
    '    console.error(error);',
    '    process.exitCode = 1;',
    '  },',
    ');',
  );
  return `${lines.join('\n')}\n`;
}

export const SNIPPET_WRITERS = { curl: curlSnippet, node: nodeSnippet } as const;
