import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type TestServer } from '../proxy/support/loopback';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * Whatever chain of filters or JSONPath a request holds, it is answered 2xx or with the budget's 400, and requests
 * sent meanwhile (probes, `GET /tokens?size=1`) are answered too. The generators only build expressions that are
 * valid for the values they meet, so any other answer is a failure. A fixed seed and a few hundred runs keep it to
 * seconds in `npm test`; PROPERTY_RUNS and PROPERTY_SEED explore further.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);
const SEED = Number(process.env.PROPERTY_SEED ?? 23);
const OVER_BUDGET = /^Expression \{\{.*\}\} is over the request's expression budget: /s;

let t: TestEngine;
/** A destination that takes a body of any size (the echo's limit is the API's) and says how large it was. */
let sink: TestServer;
let key: string;
let textId: string;
let treeId: string;

/** A JSON tree of a few hundred nodes: nested queries over it range from cheap to far over the budget. */
function tree(depth: number): unknown {
  if (depth === 0) return 'leaf';
  return { a: [tree(depth - 1), depth], b: { c: tree(depth - 1), d: [depth, [depth]] } };
}

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  sink = await startServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => res.end(JSON.stringify({ bytes })));
  });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'property', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:use'] }] },
  });
  key = app.body.key;
  textId = (await t.call('POST', '/tokens', { key, body: { type: 'token', data: 'card 4242' } })).body.id;
  treeId = (await t.call('POST', '/tokens', { key, body: { type: 'token', data: tree(5) } })).body.id;
});
afterAll(async () => {
  await t.stop();
  await sink.close();
});

// Filter chains over text, typed so that every filter meets a value it takes: text (or null) and lists.
const size = fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: 3_000_000 }));
type Step = { filter: string; to: 'text' | 'list' };
const textStep: fc.Arbitrary<Step> = fc.oneof(
  size.map((n) => ({ filter: `pad_left: ${n}, 'x'`, to: 'text' as const })),
  size.map((n) => ({ filter: `pad_right: ${n}, 'y'`, to: 'text' as const })),
  fc.constantFrom<Step>(
    { filter: "append: 'ab'", to: 'text' },
    { filter: 'upcase', to: 'text' },
    { filter: "replace: 'x', 'xx'", to: 'text' },
    { filter: "remove: 'y'", to: 'text' },
    { filter: 'reveal_last: 4', to: 'text' },
    { filter: 'size', to: 'text' },
    { filter: "split: ''", to: 'list' },
    { filter: "split: 'x'", to: 'list' },
  ),
);
const listStep: fc.Arbitrary<Step> = fc.constantFrom<Step>(
  { filter: "join: ''", to: 'text' },
  { filter: "join: '-'", to: 'text' },
  { filter: 'size', to: 'text' },
  { filter: 'first', to: 'text' },
  { filter: `where_exp: 'c', 'c == "x"'`, to: 'list' },
  { filter: "where: 'size', 1", to: 'list' },
  { filter: 'reverse', to: 'list' },
  { filter: 'sort', to: 'list' },
  { filter: 'uniq', to: 'list' },
  { filter: "map: 'size'", to: 'list' },
);

/** A chain of up to `length` filters starting from text. */
function chain(length: number): fc.Arbitrary<string[]> {
  if (length === 0) return fc.constant([]);
  const from = (state: 'text' | 'list', left: number): fc.Arbitrary<string[]> =>
    left === 0
      ? fc.constant([])
      : (state === 'text' ? textStep : listStep).chain((step) => from(step.to, left - 1).map((rest) => [step.filter, ...rest]));
  return fc.integer({ min: 1, max: length }).chain((n) => from('text', n));
}

// JSONPaths with filters nested up to five deep (the limit is three), always ending at a name the tree lacks, so a
// query selects nothing rather than several values (which is its own 400).
const pathSegment = (inner: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('..*', '.*', '[*]', '..a', '.b', '[0]', '..d'),
    inner.map((query) => `[?${query}]`),
    inner.map((query) => `..[?${query}]`),
  );
const relativeQuery: fc.Memo<string> = fc.memo((depth) =>
  fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.array(pathSegment(depth > 1 ? relativeQuery(depth - 1) : fc.constant('@.zz')), { minLength: 1, maxLength: 3 }).map((s) => `@${s.join('')}`),
    fc.constant('count(@..*) > 2'),
  ),
);
const jsonPath = fc
  .tuple(fc.array(pathSegment(relativeQuery(5)), { minLength: 1, maxLength: 3 }), fc.constantFrom('..zz', '.zz'))
  .map(([segments, end]) => `$${segments.join('')}${end}`);

const expression = fc.oneof(
  chain(6).map((filters) => `{{ ${[textId, ...filters].join(' | ')} }}`),
  jsonPath.map((path) => `{{ ${treeId} | json: '${path}' }}`),
);
const requestCase = fc.record({
  expressions: fc.array(expression, { minLength: 1, maxLength: 3 }),
  viaProxy: fc.boolean(),
});

function expectTwoHundredOrBudget(res: ApiResponse, viaProxy: boolean) {
  if (res.status === 200) {
    if (viaProxy) expect(res.headers['bt-proxy-destination-status']).toBe('200');
    return;
  }
  const problem = viaProxy ? res.body?.proxy_error : res.body;
  expect(res.status, res.text.slice(0, 300)).toBe(400);
  expect(problem?.detail, res.text.slice(0, 300)).toMatch(OVER_BUDGET);
}

it(`answers any filter chain or nested JSONPath with a 2xx or the budget's 400, and answers probes meanwhile (${RUNS} runs, seed ${SEED})`, async () => {
  const probes: number[] = [];
  let running = true;
  const probing = (async () => {
    while (running) {
      probes.push((await t.call('GET', '/tokens?size=1', { key })).status);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  try {
    await fc.assert(
      fc.asyncProperty(requestCase, async ({ expressions, viaProxy }) => {
        const body = Object.fromEntries(expressions.map((e, i) => [`v${i}`, e]));
        const res = viaProxy
          ? await t.call('POST', '/proxy', { key, body, headers: { 'BT-PROXY-URL': sink.url } })
          : await t.call('POST', '/detokenize', { key, body });
        expectTwoHundredOrBudget(res, viaProxy);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  } finally {
    running = false;
    await probing;
  }
  console.log(`expression budget property: ${RUNS} runs, seed ${SEED}, ${Math.round(performance.now() - started)} ms, ${probes.length} probes`);
  expect(probes.length).toBeGreaterThan(0);
  expect(probes.every((status) => status === 200)).toBe(true);
});
