import { afterEach, describe, expect, it } from 'vitest';
import {
  expressionPreviewSchema,
  requestCheckSchema,
  tokenSuggestionSchema,
  type RequestCheck,
  exchangeSchema,
} from '../../shared/workbench/composer-contract';
import { createPrivateApplication, createToken, startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The Composer's flags before sending (checkRequest), its hovers (previewExpression) and its token completion
 * (suggestTokens), against a real engine. Where a flag says what the proxy would answer, the request is sent too and
 * the proxy's own answer compared: the flags and the proxy share their checks.
 */
const PAN = '4242424242424242';
let bench: TestEngine;
let privateApp: string;

async function start(options: Parameters<typeof startTestEngine>[0] = {}) {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, ...options });
  privateApp = bench.engine.bootstrapKeys!.private.application_id;
}
afterEach(() => bench?.stop());

const token = (type: string, data: unknown, extra: Record<string, unknown> = {}) => createToken(bench, type, data, extra);
const application = (name: string, body: Record<string, unknown>) => createPrivateApplication(bench, name, body);

interface Composed {
  body: string | null;
  headers?: [string, string][];
  path?: string;
  application_id?: string | null;
  target_id?: string | null;
}

const proxyHeaders = () => [['BT-PROXY-URL', bench.engine.echoUrl!] as [string, string], ['Content-Type', 'application/json'] as [string, string]];

async function check({ body, headers = proxyHeaders(), path = '/proxy/v1/charges', application_id = privateApp, target_id = null }: Composed): Promise<RequestCheck> {
  const reply = await bench.engine.workbench.checkRequest({ application_id, target_id, method: 'POST', path, headers, body });
  return requestCheckSchema.parse(reply);
}

/** What the proxy answers the same request with, as problem details. */
async function proxyAnswer({ body, headers = proxyHeaders(), path = '/proxy/v1/charges', application_id = privateApp }: Composed) {
  const exchange = exchangeSchema.parse(
    await bench.engine.workbench.sendRequest({ id: crypto.randomUUID(), application_id: application_id!, method: 'POST', path, headers, body }),
  );
  if (exchange.outcome.kind !== 'response') throw new Error('no answer');
  const text = Buffer.from(exchange.outcome.body_base64, 'base64').toString('utf8');
  return { status: exchange.outcome.status, detail: (JSON.parse(text) as { proxy_error?: { detail: string } }).proxy_error?.detail };
}

const marked = (body: string, flag: RequestCheck['flags'][number]) => (flag.at.part === 'body' ? body.slice(flag.at.from, flag.at.to) : null);

describe('checkRequest', () => {
  it('flags every broken expression where it is, and the proxy refuses the first with the same words', async () => {
    await start();
    const id = await token('card_number', PAN);
    const body = `{\n  "a": "{{ ${id} | no_such_filter }}",\n  "b": "{{ ${id}",\n  "c": "{{ ${id} }}",\n  "d": "{{ | last4 }}"\n}`;
    const { flags } = await check({ body });
    const broken = flags.filter((f) => f.kind === 'broken_expression');
    expect(broken.map((f) => marked(body, f))).toEqual([`{{ ${id} | no_such_filter }}`, `{{ ${id}`, '{{ | last4 }}']);
    expect(broken.every((f) => f.severity === 'error' && f.advice)).toBe(true);
    expect(broken[1].advice).toBe('Close it with }}.');
    // The good expression in the middle is neither flagged nor lost.
    expect(flags.filter((f) => f.at.part === 'body' && marked(body, f) === `{{ ${id} }}`)).toEqual([]);
    const proxy = await proxyAnswer({ body });
    expect(proxy.status).toBe(400);
    // The proxy answers with one of them (it places every expression before it parses any): the same words.
    expect(broken.map((f) => f.message)).toContain(`400 from the proxy: ${proxy.detail}`);
  });

  it('flags an unknown token with the 400 the proxy answers, and knows nothing is wrong with a live one', async () => {
    await start();
    const id = await token('card_number', PAN);
    const body = `{"pan": "{{ ${id} }}", "other": "{{ tok_gone_123 | last4 }}"}`;
    const { flags, expressions } = await check({ body });
    const unknown = flags.filter((f) => f.kind === 'unknown_token');
    expect(unknown).toHaveLength(1);
    expect(marked(body, unknown[0])).toBe('{{ tok_gone_123 | last4 }}');
    expect(unknown[0].message).toBe(`400 from the proxy: ${(await proxyAnswer({ body })).detail}`);
    expect(expressions.map((e) => e.token_id)).toEqual([id, 'tok_gone_123']);

    const clean = await check({ body: `{"pan": "{{ ${id} }}"}`, headers: [['BT-PROXY-URL', 'https://api.example.com'], ['Content-Type', 'application/json']] });
    expect(clean.flags).toEqual([]);
  });

  it('takes encrypted (the PFX-ENCRYPTED requests) for what the call brings, not a token of the vault', async () => {
    await start();
    const body = `{"pan": "{{ encrypted | json: '$.data.number' }}"}`;
    const { flags } = await check({ body, headers: [['BT-PROXY-URL', 'https://api.example.com'], ['Content-Type', 'application/json']] });
    expect(flags).toEqual([]);
  });

  it("flags a token the application may not use with the proxy's 403 and the rule that decides", async () => {
    await start();
    const id = await token('card_number', PAN);
    const general = await application('general only', {
      rules: [{ description: 'general use', priority: 1, container: '/general/', transform: 'reveal', permissions: ['token:use'] }],
    });
    const body = `{"pan": "{{ ${id} }}"}`;
    const { flags } = await check({ body, application_id: general });
    const forbidden = flags.filter((f) => f.kind === 'forbidden_token');
    expect(forbidden).toHaveLength(1);
    const proxy = await proxyAnswer({ body, application_id: general });
    expect(proxy.status).toBe(403);
    expect(forbidden[0].message).toContain(`403 from the proxy: ${proxy.detail}`);
    expect(forbidden[0].message).toContain('no rule of “general only” grants token:use on /pci/high/');
    expect(forbidden[0].message).toContain('token:use on /general/ only');
    expect(forbidden[0].advice).toBe('Give “general only” an access rule granting token:use on /pci/high/, or send as an application that has one.');
  });

  it('says when a rule masks a token the proxy would send, and when the application cannot use the proxy at all', async () => {
    await start();
    const id = await token('card_number', PAN);
    const masking = await application('masks pci', {
      rules: [{ description: 'pci masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:use'] }],
    });
    const masked = await check({ body: `{"pan": "{{ ${id} }}"}`, application_id: masking });
    expect(masked.flags.find((f) => f.kind === 'masked_use')).toMatchObject({
      severity: 'info',
      message: expect.stringContaining('by its rule “pci masked” (priority 1, container /pci/, mask): the destination receives the masked value'),
    });

    const reader = await application('reader', { permissions: ['token:read'] });
    const refused = await check({ body: `{"pan": "{{ ${id} }}"}`, application_id: reader });
    expect(refused.flags.filter((f) => f.kind === 'refused')).toEqual([
      expect.objectContaining({ at: { part: 'request' }, message: `403 from the proxy: ${(await proxyAnswer({ body: '{}', application_id: reader })).detail}` }),
    ]);
    // The tokens are still looked up; whether this application may use them is moot.
    expect(refused.flags.some((f) => f.kind === 'forbidden_token')).toBe(false);
  });

  it('flags expressions outside the body: in a header, a query parameter and the path', async () => {
    await start();
    const { flags } = await check({
      body: '{}',
      path: '/proxy/cards/{{ tok_1 }}?pan={{ tok_1 }}&plain=1',
      headers: [...proxyHeaders(), ['X-Card', '{{ tok_1 | last4 }}']],
    });
    expect(flags.filter((f) => f.kind === 'outside_body').map((f) => f.at)).toEqual([
      { part: 'path' },
      { part: 'query', name: 'pan' },
      { part: 'header', name: 'X-Card' },
    ]);
    expect(flags.find((f) => f.kind === 'outside_body')!.message).toContain('sent as written: only the body is detokenized');
  });

  it('lets header expressions rooted at proxy through, and flags one that does not parse with the words of the proxy’s 400', async () => {
    await start();
    const headers: [string, string][] = [
      ...proxyHeaders(),
      ['X-Signature', "{{ proxy.request.body | hmac: 'sha-256', 'k' | to_base16 }}"],
      ['X-Bad', '{{ proxy.request.body | no_such_filter }}'],
    ];
    const { flags } = await check({ body: '{}', headers });
    expect(flags.filter((f) => f.at.part === 'header')).toEqual([
      expect.objectContaining({ severity: 'error', kind: 'broken_expression', at: { part: 'header', name: 'X-Bad' }, message: `400 from the proxy: ${(await proxyAnswer({ body: '{}', headers })).detail}` }),
    ]);
  });

  it('flags the expression past the configured limit, and past the hosted limit as a difference', async () => {
    await start({ maxExpressions: 3 });
    const id = await token('card_number', PAN);
    const body = JSON.stringify(Object.fromEntries([1, 2, 3, 4].map((n) => [`f${n}`, `{{ ${id} }}`])));
    const { flags } = await check({ body });
    const limit = flags.find((f) => f.kind === 'expression_limit')!;
    expect(limit.message).toBe(`400 from the proxy: ${(await proxyAnswer({ body })).detail}`);
    expect(limit.at).toEqual({ part: 'body', from: body.lastIndexOf('{{'), to: body.length - 2 });
    await bench.stop();

    await start({ maxExpressions: 30 });
    const again = await token('card_number', PAN);
    const many = JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, n) => [`f${n}`, `{{ ${again} }}`])));
    const hosted = (await check({ body: many })).flags.filter((f) => f.kind === 'compatibility');
    expect(hosted.map((f) => f.message)).toContain('21 expressions; the hosted service detokenizes at most 20 per request');
  });

  it("flags what fails when evaluated, as the proxy's render fails", async () => {
    await start();
    const id = await token('card_number', PAN);
    const body = `{"exp": "{{ ${id} | card_exp: 'MM/YY' }}"}`;
    const { flags } = await check({ body });
    const failed = flags.filter((f) => f.kind === 'evaluation');
    expect(failed).toHaveLength(1);
    expect(failed[0].message).toBe(`400 from the proxy: ${(await proxyAnswer({ body })).detail}`);
    expect(JSON.stringify(flags)).not.toContain(PAN);
  });

  it("shows the local engine's differences from the hosted service only for the local engine", async () => {
    await start();
    const local = await check({ body: '{}' });
    expect(local.flags.filter((f) => f.kind === 'compatibility').map((f) => f.message)).toEqual([
      'Destination uses http; the hosted service only proxies to https',
      'Destination host 127.0.0.1 is an IP address; the hosted service requires a DNS name',
    ]);
    const remote = await check({ body: '{"pan": "{{ tok_nowhere_1 }}", "bad": "{{ x | nope }}"}', target_id: 'any-remote', application_id: null });
    expect(remote.vault_checked).toBe(false);
    // The remote's vault is its own: only what the request itself shows.
    expect(remote.flags.map((f) => f.kind)).toEqual(['broken_expression']);
  });

  it('checks tokens without access rules when no application is chosen, and nothing on a vault API call', async () => {
    await start();
    const { flags } = await check({ body: '{"pan": "{{ tok_missing_1 }}"}', application_id: null });
    expect(flags.map((f) => f.kind)).toEqual(['unknown_token', 'compatibility', 'compatibility']);
    expect((await check({ body: '{"mask": "{{ data.number | reveal_last: 4 }}"}', path: '/tokens', headers: [] })).flags).toEqual([]);
  });
});

describe('checkRequest: what would be sent empty', () => {
  const CARD = { number: PAN, expiration_month: 12, expiration_year: 2030, cvc: '123' };

  /** What the echo destination received for the body, parsed. */
  async function received(body: string): Promise<Record<string, unknown>> {
    const exchange = exchangeSchema.parse(
      await bench.engine.workbench.sendRequest({ id: crypto.randomUUID(), application_id: privateApp, method: 'POST', path: '/proxy/v1/charges', headers: proxyHeaders(), body }),
    );
    if (exchange.outcome.kind !== 'response') throw new Error('no answer');
    return JSON.parse((JSON.parse(Buffer.from(exchange.outcome.body_base64, 'base64').toString('utf8')) as { body: string }).body);
  }

  it("warns of a JSONPath that matches nothing in the token's data, with its fields and the nearest one, where the proxy sends it empty", async () => {
    await start();
    const card = await token('card', CARD);
    const body = `{\n  "number": "{{ ${card} | json: '$.numbr' }}",\n  "exp": "{{ ${card} | card_exp: 'MM/YY' }}"\n}`;
    const { flags } = await check({ body });
    const missed = flags.filter((f) => f.kind === 'json_path_no_match');
    expect(missed).toHaveLength(1);
    expect(marked(body, missed[0])).toBe(`{{ ${card} | json: '$.numbr' }}`);
    expect(missed[0]).toMatchObject({ severity: 'warning', advice: 'Did you mean $.number?' });
    expect(missed[0].message).toBe(
      `{{ ${card.slice(0, 8)}… | json: '$.numbr' }}: $.numbr matches nothing in the data of card token ${card.slice(0, 8)}…, whose fields are number, expiration_month, expiration_year, cvc; the proxy would send "" for it`,
    );
    // Only names: no value of the token's data.
    expect(JSON.stringify(flags)).not.toMatch(/4242|2030|"123"/);
    // The proxy accepts it and sends it empty: the warning is the only sign.
    expect((await received(body)).number).toBe('');
  });

  it('names the fields where a nested path stops matching, reads the whole token after token:, and says when the data has no fields', async () => {
    await start();
    const person = await token('token', { name: 'Ada', billing: { zip: '75001', city: 'Paris' } });
    const number = await token('card_number', PAN);
    const body = JSON.stringify({
      zip: `{{ ${person} | json: '$.billing.zipp' }}`,
      name: `{{ token: ${person} | json: '$.data.nme' }}`,
      pan: `{{ ${number} | json: '$.number' }}`,
    });
    const missed = (await check({ body })).flags.filter((f) => f.kind === 'json_path_no_match');
    expect(missed.map((f) => [f.message.replace(/^.*?}}: /, ''), f.advice])).toEqual([
      [`$.billing.zipp matches nothing in the data of token token ${person.slice(0, 8)}…: $.billing has the fields zip, city; the proxy would send "" for it`, 'Did you mean $.billing.zip?'],
      [`$.data.nme matches nothing in token token ${person.slice(0, 8)}…: $.data has the fields name, billing; the proxy would send "" for it`, 'Did you mean $.data.name?'],
      [
        `$.number matches nothing in the data of card_number token ${number.slice(0, 8)}…, which is text, with no fields; the proxy would send "" for it`,
        `Use the data as it is, without the json filter: {{ ${number} }}.`,
      ],
    ]);
  });

  it('warns of an expression that renders empty for another reason, with what the proxy would send in its place', async () => {
    await start();
    const person = await token('token', { name: '', nick: 'Ada' });
    const body = `{"name": "{{ ${person} | json: '$.name' }}", "part": "x{{ ${person} | json: '$.nick' | slice: 9, 2 }}", "n": {{ ${person} | json: '$.none' }}}`;
    const { flags } = await check({ body });
    const empty = flags.filter((f) => f.kind === 'renders_empty' || f.kind === 'json_path_no_match');
    expect(empty.map((f) => [f.kind, marked(body, f)])).toEqual([
      ['renders_empty', `{{ ${person} | json: '$.name' }}`],
      ['renders_empty', `{{ ${person} | json: '$.nick' | slice: 9, 2 }}`],
      ['json_path_no_match', `{{ ${person} | json: '$.none' }}`],
    ]);
    expect(empty[0].message).toContain(': $.name selects an empty value in the data of token token');
    expect(empty[0].message).toMatch(/the proxy would send "" for it$/);
    expect(empty[1].message).toContain(`: it renders empty over token token ${person.slice(0, 8)}…; the proxy would send nothing for it`);
    expect(empty[2].message).toMatch(/the proxy would send null for it$/);
    expect(empty.every((f) => f.severity === 'warning')).toBe(true);
    expect(await received(body)).toEqual({ name: '', part: 'x', n: null });
  });

  it('lists errors first, then warnings, then notes, each in the order of the request', async () => {
    await start();
    const card = await token('card', CARD);
    const body = `{"a": "{{ ${card} | json: '$.numbr' }}", "b": "{{ 00000000-0000-4000-8000-000000000000 }}"}`;
    const { flags } = await check({ body });
    expect(flags.map((f) => f.kind)).toEqual(['unknown_token', 'json_path_no_match', 'compatibility', 'compatibility']);
  });
});

describe('previewExpression', () => {
  it("shows the token masked and what the expression writes, computed from the masked data, never the data", async () => {
    await start();
    const exp = new Date().getFullYear() + 2;
    const id = await token('card', { number: PAN, expiration_month: 7, expiration_year: exp, cvc: '123' }, { metadata: { customer: 'c-42' } });
    const body = `{"pan": "{{ ${id} | json: '$.number' }}", "exp": "{{ ${id} | card_exp: 'MM/YY' }}", "x": "{{ nope }}"}`;
    const preview = async (text: string) =>
      expressionPreviewSchema.parse(
        await bench.engine.workbench.previewExpression({ application_id: privateApp, content_type: 'application/json', body, at: body.indexOf(text) + 3 }),
      );
    const pan = (await preview(`{{ ${id} | json`))!;
    // What it writes: here the whole JSON string, quotes and all.
    expect(pan).toMatchObject({ from: body.indexOf('{{'), produces: '"XXXXXXXXXXXX4242"', problem: null, token: { id, type: 'card', metadata: { customer: 'c-42' } } });
    expect(pan.access).toBe('“Tokenbench backend” may use it revealed, by its permissions (token:use reveals)');
    expect((await preview(`{{ ${id} | card_exp`))!.produces).toBe(`"07/${String(exp).slice(2)}"`);
    expect((await preview('{{ nope }}'))!).toMatchObject({ token: null, problem: 'No live token has the id nope' });
    expect(await preview('"x"')).toBeNull();
    expect(JSON.stringify(await preview(`{{ ${id} | json`))).not.toContain(PAN);
  });
});

describe('suggestTokens', () => {
  it('finds tokens by the start of their id, their type, container, metadata or masked data, a page at a time', async () => {
    await start();
    const visa = await token('card_number', PAN, { id: 'tok-visa-1', metadata: { customer: 'alice' } });
    const mc = await token('card_number', '5555555555554444', { id: 'tok-mc-2', metadata: { customer: 'bob' } });
    const ssn = await token('social_security_number', '123-45-6789', { id: 'ssn-3' });
    const suggest = async (text: string, limit?: number) =>
      tokenSuggestionSchema.array().parse(await bench.engine.workbench.suggestTokens({ text, limit: limit ?? 20 })).map((t) => t.id);

    expect(await suggest('tok-')).toEqual([mc, visa]);
    expect(await suggest('social')).toEqual([ssn]);
    expect(await suggest('/pii/')).toEqual([ssn]);
    expect(await suggest('ALICE')).toEqual([visa]);
    expect(await suggest('4444')).toEqual([mc]);
    expect(await suggest('6789')).toEqual([ssn]);
    expect(await suggest('', 2)).toEqual([ssn, mc]);
    expect(await suggest('zzz')).toEqual([]);
    const [shown] = tokenSuggestionSchema.array().parse(await bench.engine.workbench.suggestTokens({ text: 'tok-visa', limit: 20 }));
    expect(shown).toEqual({ id: visa, type: 'card_number', masked: 'XXXXXXXXXXXX4242', containers: ['/pci/high/'], metadata: { customer: 'alice' }, expires_at: null });
  });
});
