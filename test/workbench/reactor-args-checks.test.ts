import { afterEach, describe, expect, it } from 'vitest';
import { exchangeSchema, requestCheckSchema, type RequestCheck } from '../../shared/workbench/composer-contract';
import { ARGS_OFFSET, reactRequest } from '../../shared/workbench/reactor-contract';
import { createPrivateApplication, createToken, startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The flags on a react's args before it is sent (checkRequest with the react Try sends): the Composer's checks in their
 * reactor mode, each compared with what the route itself answers the same react.
 */
const PAN = '4242424242424242';
const CODE = 'module.exports = async function (req) { return { raw: { n: Object.keys(req.args).length } }; };';
let bench: TestEngine;
let privateApp: string;
let reactorId: string;

async function start() {
  bench = await startTestEngine({ inMemory: true });
  privateApp = bench.engine.bootstrapKeys!.private.application_id;
  const made = await bench.call('POST', '/reactors', { key: bench.managementKey, body: { name: 'checked', code: CODE } });
  expect(made.status).toBe(201);
  reactorId = made.body.id;
}
afterEach(() => bench?.stop());

const token = () => createToken(bench, 'card_number', PAN);
const application = (name: string, body: Record<string, unknown>) => createPrivateApplication(bench, name, body);

/** The flags on `args` as the Reactors page's Try asks for them, each body place made a place in the args. */
async function check(args: string, applicationId: string | null = privateApp): Promise<RequestCheck> {
  const reply = requestCheckSchema.parse(await bench.engine.workbench.checkRequest({ application_id: applicationId, target_id: null, ...reactRequest(reactorId, args) }));
  const inArgs = (at: RequestCheck['flags'][number]['at']) => (at.part === 'body' ? { ...at, from: at.from - ARGS_OFFSET, to: at.to - ARGS_OFFSET } : at);
  return { ...reply, flags: reply.flags.map((flag) => ({ ...flag, at: inArgs(flag.at) })) };
}

/** What the route answers the same react, as problem details. */
async function routeAnswer(args: string, applicationId = privateApp) {
  const exchange = exchangeSchema.parse(await bench.engine.workbench.tryReactor({ request_id: crypto.randomUUID(), id: reactorId, application_id: applicationId, args, async: false }));
  if (exchange.outcome.kind !== 'response') throw new Error('no answer');
  const body = JSON.parse(Buffer.from(exchange.outcome.body_base64, 'base64').toString('utf8')) as { detail?: string };
  return { status: exchange.outcome.status, detail: body.detail };
}

const marked = (args: string, flag: RequestCheck['flags'][number]) => (flag.at.part === 'body' ? args.slice(flag.at.from, flag.at.to) : null);

describe('checkRequest on a react', () => {
  it('flags an unknown token and a broken expression where they are in the args, in the words the route answers with', async () => {
    await start();
    const id = await token();
    const unknown = '0b3f5a3c-0000-4000-8000-000000000000';
    const args = `{\n  "card": "{{ ${unknown} }}",\n  "last4": "{{ ${id} | no_such_filter }}",\n  "good": "{{ ${id} }}"\n}`;
    const { flags } = await check(args);
    expect(flags.map((f) => [f.kind, marked(args, f)])).toEqual([
      ['unknown_token', `{{ ${unknown} }}`],
      ['broken_expression', `{{ ${id} | no_such_filter }}`],
    ]);
    const route = await routeAnswer(args);
    expect(route.status).toBe(400);
    expect(flags.map((f) => f.message)).toContain(`400 from the reactor: ${route.detail}`);
    // Fixed, the same args pass the check and the route.
    const fixed = `{"card": "{{ ${id} }}"}`;
    expect((await check(fixed)).flags).toEqual([]);
    expect((await routeAnswer(fixed)).status).toBe(200);
  });

  it("flags a token outside the application's reactor:invoke with the route's 403 and the rule that decides", async () => {
    await start();
    const id = await token();
    const general = await application('general only', {
      rules: [{ description: 'general', priority: 1, container: '/general/', transform: 'reveal', permissions: ['reactor:invoke'] }],
    });
    const args = `{"card": "{{ ${id} }}"}`;
    const forbidden = (await check(args, general)).flags.filter((f) => f.kind === 'forbidden_token');
    expect(forbidden.map((f) => marked(args, f))).toEqual([`{{ ${id} }}`]);
    const route = await routeAnswer(args, general);
    expect(route.status).toBe(403);
    expect(forbidden[0].message).toContain(`403 from the reactor: ${route.detail}`);
    expect(forbidden[0].message).toContain('no rule of “general only” grants reactor:invoke on /pci/high/');
    expect(forbidden[0].advice).toBe('Give “general only” an access rule granting reactor:invoke on /pci/high/, or send as an application that has one.');
  });

  it('flags an application the route refuses, args that are not JSON, and more expressions than a react takes', async () => {
    await start();
    const reader = await application('reader', { permissions: ['token:read'] });
    const refused = (await check('{}', reader)).flags;
    expect(refused).toEqual([expect.objectContaining({ kind: 'refused', at: { part: 'request' }, message: `403 from the reactor: ${(await routeAnswer('{}', reader)).detail}` })]);

    const broken = '{"amount": 100,}';
    const notJson = (await check(broken)).flags;
    expect(notJson).toEqual([expect.objectContaining({ severity: 'error', kind: 'refused', message: `400 from the reactor: ${(await routeAnswer(broken)).detail}` })]);
    expect(marked(broken, notJson[0])).toBe('}');

    const id = await token();
    const many = JSON.stringify(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, `{{ ${id} }}`])));
    const limit = (await check(many)).flags.filter((f) => f.kind === 'expression_limit');
    const route = await routeAnswer(many);
    expect(route.status).toBe(400);
    expect(limit.map((f) => f.message)).toEqual([`400 from the reactor: ${route.detail}`]);
  });
});
