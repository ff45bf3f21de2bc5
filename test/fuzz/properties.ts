import fc from 'fast-check';
import { closeSync, ftruncateSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isCall, METHOD_NAMES, type MethodName } from '../../shared/workbench/methods';
import { httpPath, SESSION_HEADER } from '../../shared/workbench/transport';
import { rawRequest } from '../support/raw-request';
import { SAVED_REQUEST } from '../support/saved-request';
import { callApi, type ApiResponse } from '../support/test-engine';
import { send, type FuzzBench } from './fuzz-bench';

/**
 * The fuzz properties over the HTTP API, the workbench's methods and the expression language. Every case runs beside
 * a probe request (fuzz-bench.ts) and must: never answer 500 (a 5xx only as the destination's own answer through the
 * proxy, or the proxy's 502 for an unreachable one), leave the vault as before when refused, and carry the canary's
 * plaintext only when it asked for it.
 */
export interface FuzzProperty {
  name: string;
  build(bench: FuzzBench): fc.IAsyncProperty<any>;
}

const FILTERS = ['json: \'$.a\'', 'last4', 'reveal_last: 2', 'reveal: 1, 2', 'card_bin', "card_exp: 'MM/YY'", 'pad_left: 3, "0"', 'to_number', 'to_boolean',
  'to_base64', 'to_base16', "hmac: 'sha-256', 'k'", 'stringify', 'json_stringify', 'upcase', 'slice: 0, 3', 'split: ","', 'first', 'nope', "json: '$['", 'default: 1'];
const WEIRD = ['{{', '}}', '{{ }}', '{{ {{ x }} }}', '{{ missing-id }}', '{{ a | nope }}', '{% raw %}', '{{ token: }}', '\u0000', '\\', '"', '\u2028', '🎉', '%', '{{ data }}'];

/** An expression or a near-miss, some naming the canary: the expression language as a client may write it. */
const expressionOf = (bench: FuzzBench) =>
  fc.oneof(
    fc.constantFrom(...WEIRD),
    fc.tuple(fc.constantFrom(bench.canary.id, `token: ${bench.canary.id}`, 'data', '00000000-0000-0000-0000-000000000000'), fc.array(fc.constantFrom(...FILTERS), { maxLength: 3 })).map(
      ([head, filters]) => `{{ ${[head, ...filters].join(' | ')} }}`,
    ),
    fc.string({ maxLength: 12 }),
  );

const textWith = (bench: FuzzBench) => fc.array(expressionOf(bench), { maxLength: 4 }).map((parts) => parts.join(''));
/** Any JSON, with expressions among its strings. */
const jsonWith = (bench: FuzzBench) =>
  fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, textWith(bench), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
  })).value;

/** Mostly tokens the engine takes (so later cases have tokens to read, change and commit), the rest anything. */
const tokenBodyOf = (bench: FuzzBench) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.record({ type: fc.constant('token'), data: fc.oneof(fc.string({ maxLength: 20 }), jsonWith(bench)), metadata: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.string({ maxLength: 6 }), { maxKeys: 2 }) }, { requiredKeys: ['type', 'data'] }) },
    { weight: 2, arbitrary: anyTokenBodyOf(bench) },
  );

const anyTokenBodyOf = (bench: FuzzBench) =>
  fc.record(
    {
      type: fc.oneof(fc.constantFrom('token', 'card', 'bank', 'social_security_number', 'card_number', 'us_bank_routing_number'), fc.string({ maxLength: 8 })),
      data: fc.oneof(jsonWith(bench), fc.record({ number: fc.stringMatching(/^4[0-9]{11,18}$/), expiration_month: fc.integer({ min: -1, max: 13 }), expiration_year: fc.integer({ min: 2000, max: 2100 }) })),
      mask: expressionOf(bench),
      fingerprint_expression: expressionOf(bench),
      search_indexes: fc.array(expressionOf(bench), { maxLength: 3 }),
      metadata: fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 6 }), fc.integer())),
      containers: fc.array(fc.constantFrom('/', '/pci/', '/a/b/', 'bad', '', '/general/'), { maxLength: 2 }),
      deduplicate_token: fc.boolean(),
      expires_at: fc.constantFrom('2999-01-01T00:00:00Z', '2000-01-01T00:00:00Z', 'never', ''),
      id: fc.oneof(fc.uuid(), fc.string({ maxLength: 10 })),
    },
    { requiredKeys: [] },
  );

const anyBody = (bench: FuzzBench) => fc.oneof(jsonWith(bench), fc.string({ maxLength: 40 }).map((raw) => ({ raw })));
const bodyOf = (value: unknown) => (typeof value === 'object' && value !== null && 'raw' in value ? (value as { raw: string }).raw : value);

/** Never a 500 or a 5xx of the engine's own; never the canary in an answer that did not ask for its plaintext. */
function expectAnswer(bench: FuzzBench, res: ApiResponse, { mayReveal = false } = {}): void {
  if (res.status >= 500) throw new Error(`answered ${res.status}: ${res.text.slice(0, 300)}`);
  if (!mayReveal && bench.leaks(res.text)) throw new Error(`the canary's plaintext in an answer (${res.status}): ${res.text.slice(0, 300)}`);
  if (res.status >= 400 && !String(res.headers['content-type']).includes('json')) throw new Error(`a ${res.status} that is not JSON: ${res.text.slice(0, 200)}`);
}

const counts = (bench: FuzzBench) => {
  const { tokenCount, applicationCount } = bench.t.engine.status();
  return { tokenCount, applicationCount };
};
function expectUnchanged(bench: FuzzBench, before: ReturnType<typeof counts>, what: string): void {
  const after = counts(bench);
  if (after.tokenCount !== before.tokenCount || after.applicationCount !== before.applicationCount) {
    throw new Error(`a refused ${what} changed the vault: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  }
}

/** Tokens a property made, for its later cases to read, change and delete (never the canary: it must survive). */
function pool() {
  const ids: string[] = [];
  return {
    add: (id: unknown) => typeof id === 'string' && ids.push(id) && ids.length > 50 && ids.shift(),
    pick: (i: number) => (ids.length ? ids[i % ids.length] : 'no-token-yet'),
  };
}

const tokens: FuzzProperty = {
  name: 'tokens: create, read, change, delete',
  build(bench) {
    const made = pool();
    return fc.asyncProperty(fc.constantFrom('create', 'read', 'patch', 'delete', 'list'), tokenBodyOf(bench), anyBody(bench), fc.nat(), async (op, token, raw, pick) => {
      const before = counts(bench);
      const id = made.pick(pick);
      if (op === 'create') {
        const body = pick % 5 === 0 ? bodyOf(raw) : token;
        const res = await send(bench, 'POST', '/tokens', bench.maskKey, body);
        expectAnswer(bench, res);
        if (res.status === 201) made.add(res.body.id);
        else if (res.status !== 200) expectUnchanged(bench, before, 'create');
      } else if (op === 'read') {
        expectAnswer(bench, await send(bench, 'GET', `/tokens/${pick % 3 === 0 ? bench.canary.id : encodeURIComponent(id)}`, bench.maskKey, undefined));
      } else if (op === 'patch') {
        const stored = await callApi(bench.t.url, 'GET', `/tokens/${id}`, { key: bench.revealKey });
        const res = await send(bench, 'PATCH', `/tokens/${encodeURIComponent(id)}`, bench.maskKey, pick % 5 === 0 ? bodyOf(raw) : token, {
          'content-type': pick % 7 === 0 ? 'application/json' : 'application/merge-patch+json',
        });
        expectAnswer(bench, res);
        if (res.status >= 400 && stored.status === 200) {
          const after = await callApi(bench.t.url, 'GET', `/tokens/${id}`, { key: bench.revealKey });
          if (after.text !== stored.text) throw new Error(`a refused PATCH (${res.status}) changed the token: ${stored.text} → ${after.text}`);
        }
      } else if (op === 'delete') {
        const res = await send(bench, 'DELETE', `/tokens/${encodeURIComponent(id)}`, bench.maskKey, undefined);
        expectAnswer(bench, res);
        if (res.status >= 400) expectUnchanged(bench, before, 'delete');
      } else {
        expectAnswer(bench, await send(bench, 'GET', `/v2/tokens?size=${pick % 120}&type=${encodeURIComponent(String(token.type ?? ''))}`, bench.maskKey, undefined));
      }
    });
  },
};

const tokenizeAndDetokenize: FuzzProperty = {
  name: 'tokenize and detokenize, and the expression language',
  build(bench) {
    return fc.asyncProperty(fc.boolean(), anyBody(bench), fc.boolean(), async (tokenize, value, reveal) => {
      const before = counts(bench);
      const body = bodyOf(value);
      if (tokenize) {
        const res = await send(bench, 'POST', '/tokenize', bench.maskKey, body);
        expectAnswer(bench, res);
        if (res.status >= 400) expectUnchanged(bench, before, 'tokenize');
      } else {
        const res = await send(bench, 'POST', '/detokenize', reveal ? bench.revealKey : bench.maskKey, body);
        // Plaintext is what /detokenize is for, for a revealing key and a body that names the canary.
        expectAnswer(bench, res, { mayReveal: reveal && JSON.stringify(body).includes(bench.canary.id) });
        expectUnchanged(bench, before, 'detokenize');
      }
    });
  },
};

const QUERY_PARTS = ['type:token', 'data:canary*', 'metadata.k:v', 'AND', 'OR', 'NOT', '(', ')', '"', '*', '?', '\\', 'fingerprint:x', 'id:', 'container:/', '[', ']', ':', 'x'];
const search: FuzzProperty = {
  name: 'search',
  build(bench) {
    const query = fc.oneof(
      fc.constantFrom('', 'type:token', 'data:canary*', 'type:token AND NOT metadata.a:b', '(type:token OR type:card)', `id:${bench.canary.id}`),
      fc.array(fc.constantFrom(...QUERY_PARTS), { maxLength: 8 }).map((parts) => parts.join(' ')),
      fc.string({ maxLength: 30 }),
    );
    return fc.asyncProperty(fc.boolean(), query, fc.integer({ min: -2, max: 120 }), fc.integer({ min: -2, max: 5 }), async (v2, q, size, page) => {
      const body = v2 ? { query: q, size, start: String(page) } : { query: q, size, page };
      expectAnswer(bench, await send(bench, 'POST', v2 ? '/v2/tokens/search' : '/tokens/search', bench.maskKey, body));
    });
  },
};

const applications: FuzzProperty = {
  name: 'applications',
  build(bench) {
    const made = pool();
    const permission = fc.constantFrom('token:create', 'token:read', 'token:use', 'application:create', 'nope', '');
    const rule = fc.record(
      {
        description: fc.string({ maxLength: 6 }),
        priority: fc.integer({ min: -1, max: 3 }),
        container: fc.constantFrom('/', '/pci/', 'bad', ''),
        transform: fc.constantFrom('mask', 'reveal', 'redact', 'nope'),
        permissions: fc.array(permission, { maxLength: 3 }),
      },
      { requiredKeys: [] },
    );
    const application = fc.record(
      { name: fc.string({ maxLength: 10 }), type: fc.constantFrom('private', 'public', 'management', 'nope'), permissions: fc.array(permission, { maxLength: 3 }), rules: fc.array(rule, { maxLength: 2 }), create_key: fc.boolean() },
      { requiredKeys: [] },
    );
    return fc.asyncProperty(fc.constantFrom('create', 'update', 'delete'), application, fc.nat(), async (op, app, pick) => {
      const before = counts(bench);
      const id = made.pick(pick);
      const res =
        op === 'create'
          ? await send(bench, 'POST', '/applications', bench.t.managementKey, app)
          : op === 'update'
            ? await send(bench, 'PUT', `/applications/${encodeURIComponent(id)}`, bench.t.managementKey, app)
            : await send(bench, 'DELETE', `/applications/${encodeURIComponent(id)}`, bench.t.managementKey, undefined);
      expectAnswer(bench, res);
      if (op === 'create' && res.status === 201) made.add(res.body.id);
      if (res.status >= 400) expectUnchanged(bench, before, `application ${op}`);
    });
  },
};

const transactions: FuzzProperty = {
  name: 'transactions: enlisted writes, then commit or rollback',
  build(bench) {
    return fc.asyncProperty(fc.array(tokenBodyOf(bench), { minLength: 1, maxLength: 4 }), fc.constantFrom('commit', 'rollback', 'commit twice'), async (writes, end) => {
      const before = counts(bench);
      const opened = await send(bench, 'POST', '/transactions', bench.maskKey, undefined);
      expectAnswer(bench, opened);
      if (opened.status !== 201) throw new Error(`could not open a transaction: ${opened.text}`);
      let staged = 0;
      for (const write of writes) {
        const res = await send(bench, 'POST', '/tokens', bench.maskKey, write, { 'BT-TRANSACTION-ID': opened.body.id });
        expectAnswer(bench, res);
        if (res.status === 201) staged += 1;
      }
      expectUnchanged(bench, before, 'staged write (before the commit)');
      const ended = await send(bench, 'POST', `/transactions/${opened.body.id}/${end === 'rollback' ? 'rollback' : 'commit'}`, bench.maskKey, undefined);
      expectAnswer(bench, ended);
      if (end === 'commit twice') expectAnswer(bench, await send(bench, 'POST', `/transactions/${opened.body.id}/commit`, bench.maskKey, undefined));
      const committed = end !== 'rollback' && ended.status === 200;
      const expected = before.tokenCount + (committed ? staged : 0);
      const after = counts(bench).tokenCount;
      // A deduplicated create stages an existing token: it adds nothing.
      if (committed ? after > expected || after < before.tokenCount : after !== before.tokenCount) {
        throw new Error(`${end} (${ended.status}) of ${staged} staged creates left ${after} tokens, from ${before.tokenCount}`);
      }
    });
  },
};

function isJson(text: string | Buffer): boolean {
  try {
    JSON.parse(text.toString());
    return true;
  } catch {
    return false;
  }
}

const HEADER_NAMES = ['Connection', 'Keep-Alive', 'TE', 'Trailer', 'Upgrade', 'Proxy-Authorization', 'Expect', 'BT-PROXY-KEEP-ALIVE', 'BT-PROXY-CONNECTION', 'BT-TRACE-ID', 'X-Dup', 'Authorization'];
const proxy: FuzzProperty = {
  name: 'proxy through the echo destination',
  build(bench) {
    const header = fc.tuple(fc.oneof(fc.constantFrom(...HEADER_NAMES), fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/)), fc.oneof(fc.stringMatching(/^[\x20-\x7e]{0,30}$/), fc.constantFrom('close', 'X-Dup, TE', '{{ x }}')));
    const type = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', 'application/vnd.x+json');
    return fc.asyncProperty(
      fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
      fc.array(header, { maxLength: 4 }),
      fc.oneof(
        jsonWith(bench).map((v) => JSON.stringify(v)),
        textWith(bench),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
        // Broken UTF-8 inside an expression, and a body over the engine's limit (built here so a counterexample prints short).
        fc.constant(Buffer.from([0x7b, 0x7b, 0x20, 0xff, 0xfe, 0x7d, 0x7d])),
        fc.constant('over the limit' as const),
      ),
      type,
      fc.constantFrom('', '/status/404', '/status/500', '/a/{{ x }}?q={{ y }}', '/../..'),
      fc.boolean(),
      async (method, headers, generated, contentType, path, reveal) => {
        const body = generated === 'over the limit' ? Buffer.alloc(bench.maxBodyBytes + 1024, 'a') : generated;
        const before = counts(bench);
        const pairs = Object.fromEntries(headers.filter(([name]) => !/^(content-type|bt-api-key|bt-proxy-url|host)$/i.test(name)));
        let res: ApiResponse;
        try {
          res = await bench.beside(() =>
            callApi(bench.t.url, method, '/proxy/fuzz', {
              key: reveal ? bench.revealKey : bench.maskKey,
              headers: { ...pairs, 'content-type': contentType, 'BT-PROXY-URL': `${bench.t.engine.echoUrl}${path}` },
              raw: method === 'GET' ? undefined : body,
            }),
          );
        } catch (error) {
          // undici refuses to send some generated header sets (nothing reached the engine); a dropped connection is ours.
          if (/UND_ERR_SOCKET|ECONNRESET|EPIPE|UND_ERR_CLOSED/.test(String((error as { code?: string }).code))) throw error;
          return;
        }
        const fromDestination = res.headers['bt-proxy-destination-status'] !== undefined;
        if (res.status >= 500 && !fromDestination) throw new Error(`the proxy answered ${res.status}: ${res.text.slice(0, 300)}`);
        if (!fromDestination && !('proxy_error' in (res.body ?? {})) && res.status >= 400) throw new Error(`a proxy failure that is not a proxy_error: ${res.text.slice(0, 200)}`);
        if (bench.leaks(res.text) && !(reveal && body.includes(bench.canary.id))) throw new Error(`the canary went out unasked: ${String(body)}`);
        if (fromDestination && res.status === 200 && contentType === 'application/json' && isJson(body)) {
          // JSON stays JSON after detokenization, whatever the token's data holds.
          const echoed = res.body as { body?: string };
          if (echoed.body && !isJson(echoed.body)) throw new Error(`valid JSON went out broken: ${echoed.body.slice(0, 200)}`);
        }
        expectUnchanged(bench, before, 'proxy call');
      },
    );
  },
};

/** Calls a workbench method over HTTP, as the browser workbench does, beside the probe. */
const callWorkbench = (bench: FuzzBench, name: MethodName, body: unknown): Promise<ApiResponse> =>
  bench.beside(() => callApi(bench.t.url, 'POST', httpPath(name), { body, headers: { [SESSION_HEADER]: bench.t.engine.browserWorkbench!.session } }));

/** Methods left out of the workbench property, each with why. */
const WORKBENCH_EXCLUDED: Partial<Record<MethodName, string>> = {
  wipeVault: 'erases the vault (the canary and the fuzz keys) by design; its refusals are in test/workbench/welcome-and-wipe.test.ts',
  live: 'a stream, not a call',
};
/** Workbench methods whose answer is the plaintext the user asked for. */
const REVEALING: MethodName[] = ['revealToken', 'revealOutbound', 'exportSeed', 'readTokenAs'];

const workbench: FuzzProperty = {
  name: 'the /_workbench/ methods',
  build(bench) {
    const names = METHOD_NAMES.filter((name) => isCall(name) && !(name in WORKBENCH_EXCLUDED));
    const field = fc.constantFrom('id', 'application_id', 'token_id', 'key_id', 'limit', 'query', 'name', 'collection', 'request', 'apply', 'include_plaintext', 'type', 'data', 'method', 'path', 'headers', 'body', 'confirm', 'size', 'start', 'before', 'state');
    const fieldValue = fc.oneof(jsonWith(bench), fc.constant(bench.canary.id), fc.integer({ min: -1, max: 1000 }));
    const request = fc.oneof(fc.dictionary(field, fieldValue, { maxKeys: 4 }), jsonWith(bench));
    return fc.asyncProperty(fc.constantFrom(...names), request, async (name, body) => {
      const before = counts(bench);
      const res = await callWorkbench(bench, name, body);
      expectAnswer(bench, res, { mayReveal: REVEALING.includes(name) || name === 'sendRequest' });
      if (res.status >= 400) expectUnchanged(bench, before, `workbench ${name}`);
    });
  },
};

/** Pieces of request targets that have broken URL building; Node's parser takes any visible ASCII in a target. */
const TARGET_PIECES = ['/', '//', '\\', '%', '%zz', '%2e', '..', '.', '?', '#', '@', ':', 'evil.example', 'http://', 'ftp:', '*', '[', ']', '"', '<', '`', '{', '|', 'a', '=', '&'];
let exported = 0;
const historyExport: FuzzProperty = {
  name: "History's HAR export of any request target",
  build(bench) {
    const target = fc.array(fc.constantFrom(...TARGET_PIECES), { minLength: 1, maxLength: 8 }).map((pieces) => pieces.join(''));
    // Mostly the one request (its trace id as the filter); now and then every kept request, page by page.
    const scope = fc.oneof({ weight: 9, arbitrary: fc.constantFrom('all', 'failed') }, { weight: 1, arbitrary: fc.constant('everything') });
    return fc.asyncProperty(target, scope, async (sent, view) => {
      const port = bench.t.engine.port;
      const trace = `har-fuzz-${++exported}-end`;
      const answer = await bench.beside(() => rawRequest(port, `GET ${sent} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nBT-TRACE-ID: ${trace}\r\n\r\n`));
      if (/^HTTP\/1\.1 5/.test(answer)) throw new Error(`GET ${sent} answered ${answer.slice(0, 200)}`);
      await bench.t.engine.history.flush();
      const filter = view === 'everything' ? {} : { view, text: trace };
      const urls: string[] = [];
      let before: string | undefined;
      do {
        const res = await callWorkbench(bench, 'exportHar', { filter, ...(before && { before }) });
        expectAnswer(bench, res);
        if (res.status !== 200) throw new Error(`exportHar answered ${res.status}: ${res.text.slice(0, 300)}`);
        urls.push(...(res.body.log.entries as { request: { url: string } }[]).map((entry) => entry.request.url));
        before = res.body.next ?? undefined;
      } while (before !== undefined);
      const foreign = urls.find((url) => new URL(url).origin !== bench.t.url);
      if (foreign !== undefined) throw new Error(`GET ${sent} exported as ${foreign}`);
      // Node's parser refuses some targets before the engine sees them (no trace id in the answer): they leave no entry.
      const recorded = /^bt-trace-id:/im.test(answer);
      if (view !== 'everything' && urls.length !== (recorded ? 1 : 0)) throw new Error(`GET ${sent} (${answer.slice(0, 12)}) exported ${urls.length} times`);
    });
  },
};

/** The seed: 1,500 tokens, each padding its fingerprint to 600,000 characters, far past what 100 may spend. */
const COSTLY_SEED = {
  tokens: Array.from({ length: 1_500 }, (_, i) => ({ id: `costly-${i}`, type: 'token', data: 'x', fingerprint_expression: "{{ data | pad_left: 600000, 'x' }}" })),
};

const seedImport: FuzzProperty = {
  name: 'seed import: dry run and apply',
  build(bench) {
    // Mostly applications the engine takes, a few keys again and again; the rest anything.
    const key = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('seeded-key-one-of-24-chars-or-more', 'seeded-key-two-of-24-chars-or-more') }, fc.stringMatching(/^[a-z0-9_]{24,40}$/), fc.string({ maxLength: 30 }));
    const application = fc.oneof(
      { weight: 4, arbitrary: fc.record({ name: fc.constantFrom('seeded one', 'seeded two', 'fuzz (masked)'), type: fc.constant('private'), permissions: fc.subarray(['token:read', 'token:create']), key }) },
      fc.record(
        { name: fc.string({ maxLength: 10 }), type: fc.constantFrom('private', 'management', 'nope'), permissions: fc.array(fc.constantFrom('token:read', 'token:create', 'nope'), { maxLength: 2 }), key },
        { requiredKeys: ['name', 'type', 'key'] },
      ),
    );
    // A few ids again and again (and the canary's), so that later cases meet what earlier ones seeded.
    const token = fc.tuple(tokenBodyOf(bench), fc.oneof(fc.uuid(), fc.constantFrom(bench.canary.id, 'seeded-1', 'seeded-2'))).map(([body, id]) => ({ ...body, id }));
    const seed = fc.oneof(
      { weight: 19, arbitrary: fc.record({ applications: fc.array(application, { maxLength: 2 }), tokens: fc.array(token, { maxLength: 4 }) }, { requiredKeys: [] }) },
      // Built in the property, so that a counterexample prints short.
      { weight: 1, arbitrary: fc.constant('the costly seed' as const) },
    );
    return fc.asyncProperty(seed, fc.boolean(), async (value, apply) => {
      const before = counts(bench);
      const res = await callWorkbench(bench, 'importSeed', { seed: value === 'the costly seed' ? COSTLY_SEED : value, apply });
      expectAnswer(bench, res);
      if (!apply || res.status >= 400) expectUnchanged(bench, before, apply ? 'seed import' : "seed import's dry run");
    });
  },
};

/** Files as large as a cloned folder may hold (sparse: they take no room on the disk), which no listing may read. */
const PLANTED = { collection: 'Too large', files: 3, megabytes: 500 };
/** Names a file system or Windows refuses, or that could lead out of the folder, among ordinary ones. */
const NAMES = ['Charge', 'Refund', PLANTED.collection, 'CON', 'con .json', 'COM¹', 'CONIN$', 'nul.', '..', '.hidden', 'a/b', 'C:\\x', 'x\u202Ey', '€'.repeat(100), 'é'.repeat(121), ' ', 'half \uD83D'];

/** What the folder holds: every entry and its size, so a refused call can be seen to have changed nothing. */
function folderState(folder: string): string {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((path) => `${path} ${lstatSync(join(folder, path)).size}`)
    .join('\n');
}

const savedRequests: FuzzProperty = {
  name: 'saved requests: save, move, delete and list, beside files too large to read',
  build(bench) {
    const folder = bench.t.engine.collectionsFolder;
    mkdirSync(join(folder, PLANTED.collection), { recursive: true });
    for (let i = 0; i < PLANTED.files; i++) {
      const fd = openSync(join(folder, PLANTED.collection, `Huge ${i}.request.json`), 'w');
      ftruncateSync(fd, PLANTED.megabytes * 1024 * 1024);
      closeSync(fd);
    }
    const name = fc.oneof(fc.constantFrom(...NAMES), fc.string({ unit: 'binary', maxLength: 12 }));
    const place = fc.record({ collection: name, name });
    return fc.asyncProperty(fc.constantFrom('save', 'overwrite', 'move', 'delete', 'list'), place, place, async (op, at, to) => {
      const before = folderState(folder);
      const res =
        op === 'list'
          ? await callWorkbench(bench, 'listCollections', {})
          : op === 'move'
            ? await callWorkbench(bench, 'moveRequest', { from: at, to })
            : op === 'delete'
              ? await callWorkbench(bench, 'deleteRequest', at)
              : await callWorkbench(bench, 'saveRequest', { ...at, request: SAVED_REQUEST, overwrite: op === 'overwrite' });
      expectAnswer(bench, res);
      if (res.status >= 400) {
        if (res.text.includes(folder)) throw new Error(`a problem names the server's folder: ${res.text.slice(0, 300)}`);
        if (folderState(folder) !== before) throw new Error(`a refused ${op} (${res.status}) changed the folder: ${res.text.slice(0, 200)}`);
      } else {
        const listed = (res.body as { collections: { name: string; requests: { name: string; problem: string | null }[] }[] }).collections;
        const requestsIn = (collection: string) => listed.find((c) => c.name === collection)?.requests ?? [];
        const planted = requestsIn(PLANTED.collection).filter((r) => r.name.startsWith('Huge '));
        if (planted.length !== PLANTED.files || planted.some((r) => r.problem === null)) throw new Error(`the planted files are not listed as too large: ${JSON.stringify(planted)}`);
        // A name saved or moved to is listed as it was given: no two names share a file.
        const made = op === 'move' ? to : op === 'save' || op === 'overwrite' ? at : null;
        if (made && !requestsIn(made.collection).some((r) => r.name === made.name)) throw new Error(`${JSON.stringify(made)} is not listed after its ${op}`);
      }
    });
  },
};

export const FUZZ_PROPERTIES: FuzzProperty[] = [tokens, tokenizeAndDetokenize, search, applications, transactions, proxy, workbench, historyExport, seedImport, savedRequests];

/** After a run: neither history (as stored) nor the engine's log ever holds the canary's plaintext. */
export function expectNoCanaryKept(bench: FuzzBench, historyBytes: Buffer): void {
  if (historyBytes.includes(Buffer.from(bench.canary.data))) throw new Error("the canary's plaintext is in history's files");
  const logged = bench.logs.find((line) => bench.leaks(line));
  if (logged) throw new Error(`the canary's plaintext is in the log: ${logged.slice(0, 300)}`);
}
