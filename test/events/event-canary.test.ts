import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../electron/engine/events/event-types';
import { startServer, type TestServer } from '../proxy/support/loopback';
import type { TestEngine } from '../support/test-engine';
import { engineKeeping, raised } from './event-support';

/** A card number and a text no fixture uses: no event of any family may hold them, whatever the engine did with them. */
const CANARY_CARD = '6011000990139424';
const CANARY_TEXT = 'canary-ssn-078-05-1120';

let t: TestEngine;
let destination: TestServer;
beforeAll(async () => {
  t = await engineKeeping(EVENT_TYPES);
  destination = await startServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    res.writeHead(200, { 'content-type': 'application/json', 'x-echo': body.slice(0, 200) });
    res.end(body);
  });
});
afterAll(async () => {
  await destination.close();
  await t.stop();
});

it('puts no plaintext, key, nonce or proxy key in any event of any family', async () => {
  const manage = { key: t.managementKey };
  const rules = [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use', 'proxy:invoke', 'reactor:invoke'] }];
  const app = (await t.call('POST', '/applications', { ...manage, body: { name: 'all', type: 'private', permissions: ['token-intent:create', 'token-intent:read', 'token-intent:delete'], rules } })).body;
  const key = app.key as string;
  const extraKey = (await t.call('POST', `/applications/${app.id}/keys`, manage)).body.key as string;
  const card = (await t.call('POST', '/tokens', { key, body: { type: 'card', data: { number: CANARY_CARD, expiration_month: 1, expiration_year: 2040 }, metadata: { note: 'plain metadata' } } })).body.id as string;
  const text = (await t.call('POST', '/tokens', { key, body: { type: 'token', data: CANARY_TEXT } })).body.id as string;
  await t.call('PATCH', `/tokens/${text}`, { key, body: { data: `${CANARY_TEXT}-2` }, headers: { 'content-type': 'application/merge-patch+json' } });
  await t.call('GET', `/tokens/${card}`, { key });
  await t.call('POST', '/detokenize', { key, body: { a: `{{ ${card} | json: '$.number' }}`, b: `{{ ${text} }}` } });
  await t.call('POST', '/v2/tokens/search', { key, body: { query: `id:${card}` } });
  await t.call('POST', '/tokenize', { key, body: { x: CANARY_TEXT, y: { type: 'card', data: { number: CANARY_CARD, expiration_month: 2, expiration_year: 2041 } } } });
  const intent = (await t.call('POST', '/token-intents', { key, body: { type: 'card', data: { number: CANARY_CARD, expiration_month: 3, expiration_year: 2042, cvc: '987' } } })).body.id as string;
  await t.call('POST', '/tokens', { key, body: { token_intent_id: intent } });
  const proxy = (await t.call('POST', '/proxies', { ...manage, body: { name: 'p', destination_url: destination.url, configuration: { api_secret: 'cfg-secret-value' } } })).body;
  const invoked = await t.call('POST', '/proxy', { key, body: { n: `{{ ${card} | json: '$.number' }}`, t: `{{ ${text} }}` }, headers: { 'BT-PROXY-KEY': proxy.key } });
  expect(invoked.text).toContain(CANARY_CARD);
  await t.call('POST', '/proxy', { key, body: { n: `{{ ${card} | json: '$.number' }}` }, headers: { 'BT-PROXY-URL': destination.url } });
  const reactor = (await t.call('POST', '/reactors', { ...manage, body: { name: 'r', code: 'module.exports = async (req) => { throw new Error("saw " + req.args.n); }' } })).body.id as string;
  await t.call('POST', `/reactors/${reactor}/react`, { key, body: { args: { n: `{{ ${card} | json: '$.number' }}` } } });
  const front = (await t.call('POST', '/applications', { ...manage, body: { name: 'front', type: 'public', permissions: ['token:create'] } })).body;
  const session = (await t.call('POST', '/sessions', { key: front.key })).body;
  await t.call('POST', '/sessions/authorize', { key, body: { nonce: session.nonce, permissions: ['token:read'] } });
  await t.call('DELETE', `/tokens/${card}`, { key });

  const events = await raised(t);
  const kinds = new Set(events.map((e) => e.type.split('.').slice(0, -1).join('.')));
  expect([...kinds].sort()).toEqual(['application', 'application.key', 'proxy', 'reactor', 'session', 'token', 'token-intent']);
  const all = JSON.stringify(events);
  expect(all).not.toContain('"cvc"');
  for (const secret of [CANARY_CARD, CANARY_TEXT, key, extraKey, front.key, session.session_key, session.nonce, proxy.key, 'cfg-secret-value', t.managementKey]) {
    expect(all, secret).not.toContain(secret);
  }
});
