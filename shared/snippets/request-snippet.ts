/**
 * A request as code to copy: a cURL command or a Node.js script (its built-in fetch) that sends exactly the method,
 * URL, headers (in order, repeated ones kept) and body bytes given. The API key is read from the environment
 * ($BT_API_KEY) unless it is given. Written here rather than by httpsnippet-lite, whose cURL target drops repeated
 * headers and query parameters and form bodies, reads a body starting with @ as a file, and quotes the key so the
 * shell cannot expand it, and whose Node targets need node-fetch and re-serialize JSON bodies.
 */

export interface SnippetRequest {
  method: string;
  /** Absolute: the target's address and the request's path and query. */
  url: string;
  headers: readonly (readonly [string, string])[];
  body: string | null;
}

/** The header that carries the API key; its value, or null to read it from the environment. */
export interface SnippetKey {
  header: string;
  value: string | null;
}

export const KEY_VARIABLE = 'BT_API_KEY';

/** What cannot be written as the code asked for (a NUL byte in a shell argument). */
export class SnippetError extends Error {}

/** Whether a header of the request gives the key itself: it is then sent as written, as the engine sends it. */
const givesKey = (request: SnippetRequest, key: SnippetKey) => request.headers.some(([name]) => name.toLowerCase() === key.header.toLowerCase());

/** A POSIX shell word that stands for `text` exactly: single quotes, each quote inside written as '\''. */
export function shellQuote(text: string): string {
  if (text.includes('\0')) throw new SnippetError('A shell argument cannot hold a NUL character');
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** curl treats [] and {} in a URL as patterns unless told not to. */
const GLOB_CHARACTERS = /[[\]{}]/;

export function curlSnippet(request: SnippetRequest, key: SnippetKey): string {
  const keyGiven = givesKey(request, key);
  const lines = [`curl --request ${request.method}`, `--url ${shellQuote(request.url)}`];
  if (GLOB_CHARACTERS.test(request.url)) lines.push('--globoff');
  for (const [name, value] of request.headers) lines.push(`--header ${shellQuote(`${name}: ${value}`)}`);
  if (!keyGiven) {
    // In double quotes, so the shell puts the key in; nothing else in the header needs quoting.
    lines.push(key.value === null ? `--header "${key.header}: $${KEY_VARIABLE}"` : `--header ${shellQuote(`${key.header}: ${key.value}`)}`);
  }
  // --data-raw: the body as is (--data would read a body starting with @ as a file name).
  if (request.body !== null) lines.push(`--data-raw ${shellQuote(request.body)}`);
  return `${lines.join(' \\\n  ')}\n`;
}

/** A JavaScript string literal for any text. */
const literal = (text: string) => JSON.stringify(text);

/** fetch refuses a body on these. */
const NO_BODY_METHODS = new Set(['GET', 'HEAD']);

export function nodeSnippet(request: SnippetRequest, key: SnippetKey): string {
  const keyGiven = givesKey(request, key);
  const lines: string[] = ['// Node.js 20 or later, whose fetch is built in.'];
  const fromEnvironment = !keyGiven && key.value === null;
  if (fromEnvironment) {
    lines.push(`// Run it with the API key in the environment: ${KEY_VARIABLE}=<key> node request.js`);
    lines.push(`if (!process.env.${KEY_VARIABLE}) throw new Error(${literal(`Set ${KEY_VARIABLE} to the API key`)});`);
  }
  lines.push('', `const url = ${literal(request.url)};`, 'const options = {', `  method: ${literal(request.method)},`, '  headers: [');
  for (const [name, value] of request.headers) lines.push(`    [${literal(name)}, ${literal(value)}],`);
  if (!keyGiven) lines.push(`    [${literal(key.header)}, ${key.value === null ? `process.env.${KEY_VARIABLE}` : literal(key.value)}],`);
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
