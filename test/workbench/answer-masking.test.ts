import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { exchangeSchema, type Exchange } from '../../shared/workbench/composer-contract';
import { startServer } from '../proxy/support/loopback';
import { engineForEachTest, PAN } from './support/workbench-engine';

/**
 * The Composer's answer to a proxied request: the values the proxy detokenized into the request are masked wherever
 * the destination's answer repeats them, in the exchange, in History and in the HAR; the plaintext answer only on
 * an explicit, recorded reveal.
 */
const current = engineForEachTest();
const MASK = 'XXXXXXXXXXXX4242';
const grouped = (digits: string, by: string) => digits.match(/.{4}/g)!.join(by);

async function cardToken(type: string, data: unknown): Promise<string> {
  const created = await current.bench.call('POST', '/tokens', { key: current.bench.privateKey, body: { type, data } });
  expect(created.status).toBe(201);
  return created.body.id;
}

let sequence = 0;
async function sendThroughProxy(destination: string, body: string): Promise<Exchange> {
  const res = await current.bench.workbench('sendRequest', {
    id: `masking-${++sequence}`,
    application_id: current.backend,
    method: 'POST',
    path: '/proxy/v1/charges',
    headers: [
      ['BT-PROXY-URL', destination],
      ['Content-Type', 'application/json'],
    ],
    body,
  });
  expect(res.status).toBe(200);
  return exchangeSchema.parse(res.body);
}

const received = (exchange: Exchange) => {
  if (exchange.outcome.kind !== 'response') throw new Error(`no answer: ${exchange.outcome.kind}`);
  return exchange.outcome;
};
const bodyOf = (exchange: Exchange) => Buffer.from(received(exchange).body_base64, 'base64').toString('utf8');
const headerOf = (headers: readonly [string, string][], name: string) => headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

/** What the engine keeps and exports of the exchange's request: its History entry and its HAR. */
async function keptOf(exchange: Exchange): Promise<string> {
  await current.bench.engine.history.flush();
  const listed = await current.bench.workbench('listHistory', { limit: 50 });
  const har = await current.bench.workbench('exportHar', { ids: [exchange.entry!.id] });
  expect(har.status).toBe(200);
  return JSON.stringify([listed.body, har.body]);
}

describe("the Composer's answer to a proxied request", () => {
  it("shows the echo destination's card number as the token's mask; History and the HAR hold no plaintext either", async () => {
    const card = await cardToken('card', { number: PAN, expiration_month: 12, expiration_year: 2030 });
    const exchange = await sendThroughProxy(
      current.bench.engine.echoUrl!,
      `{"number": "{{ ${card} | json: '$.number' }}", "exp": "{{ ${card} | card_exp: 'MM/YY' }}", "card": {{ ${card} }}}`,
    );
    const answer = bodyOf(exchange);
    expect(answer).not.toContain(PAN);
    // The echo carries the body it received as a JSON string: each value where it stood, as the mask shows it. What
    // the mask leaves as it is (the expiry) is no secret of the token's.
    const echoed = JSON.parse(JSON.parse(answer).body);
    expect(echoed).toEqual({ number: MASK, exp: '12/30', card: { number: MASK, expiration_month: 12, expiration_year: 2030 } });
    expect(received(exchange).masked).toBe(2);
    expect(exchange.entry).not.toBeNull();
    expect(await keptOf(exchange)).not.toContain(PAN);
  });

  it('masks a value wherever and however a destination repeats it: grouped, without separators, escaped, inside a word, in a header', async () => {
    const card = await cardToken('card_number', PAN);
    const holder = await cardToken('token', { name: 'Zoë "Q" Nguyen-Smith' });
    const said = [
      `spaced ${grouped(PAN, ' ')}.`,
      `dashed ${grouped(PAN, '-')}`,
      `inside ref${PAN}x`,
      `twice ${PAN}${PAN}`,
      JSON.stringify({ holder: 'Zoë "Q" Nguyen-Smith' }),
      `form name=${new URLSearchParams({ n: 'Zoë "Q" Nguyen-Smith' }).toString().slice(2)}`,
      `encoded ${Buffer.from(PAN).toString('base64')}`,
    ].join('\n');
    const destination = await startServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-card': `card ${grouped(PAN, '-')} ok` });
        res.end(said);
      });
    });
    try {
      const exchange = await sendThroughProxy(destination.url, `{"card": "{{ ${card} }}", "holder": "{{ ${holder} | json: '$.name' }}"}`);
      expect(bodyOf(exchange)).toBe(
        [
          `spaced ${MASK}.`,
          `dashed ${MASK}`,
          `inside ref${MASK}x`,
          `twice ${MASK}${MASK}`,
          '{"holder":"[redacted]"}',
          'form name=%5Bredacted%5D',
          `encoded ${Buffer.from(MASK).toString('base64')}`,
        ].join('\n'),
      );
      expect(headerOf(received(exchange).headers, 'x-card')).toBe(`card ${MASK} ok`);
      expect(received(exchange).masked).toBe(9);
      // History's record of the answer's headers, and the HAR, with the same masks.
      const kept = await keptOf(exchange);
      expect(kept).not.toMatch(new RegExp(PAN.split('').join('[ -]?')));
      expect(kept).not.toContain('Nguyen');
      expect(headerOf(exchange.entry!.proxy!.response!.headers, 'x-card')).toBe(`card ${MASK} ok`);
    } finally {
      await destination.close();
    }
  });

  it('masks a value wherever it sits in a long answer, across the parts the engine searches one at a time', async () => {
    const card = await cardToken('card_number', PAN);
    // Values astride every 64 KiB boundary, as written and grouped; and a short answer's worth of text between.
    const said = Array.from({ length: 8 }, (_, i) => 'a'.repeat(64 * 1024 - (i % 2 ? 24 : 8)) + (i % 2 ? grouped(PAN, ' ') : PAN) + 'b'.repeat(16)).join('');
    const destination = await startServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(said));
    });
    try {
      const exchange = await sendThroughProxy(destination.url, `{"card": "{{ ${card} }}"}`);
      expect(bodyOf(exchange)).not.toMatch(new RegExp(PAN.split('').join(' ?')));
      expect(received(exchange).masked).toBe(8);
    } finally {
      await destination.close();
    }
  });

  it('leaves an answer that repeats no value as it came, with nothing to reveal', async () => {
    const card = await cardToken('card_number', PAN);
    const destination = await startServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('accepted: order 1234, ref 99994242'));
    });
    try {
      const exchange = await sendThroughProxy(destination.url, `{"card": "{{ ${card} }}"}`);
      expect(bodyOf(exchange)).toBe('accepted: order 1234, ref 99994242');
      expect(received(exchange).masked).toBe(0);
      const reveal = await current.bench.workbench('revealAnswer', { id: exchange.entry!.id });
      expect(reveal.status).toBe(404);
      expect(reveal.body.detail).toMatch(/^No answer of request .+ is held/);
    } finally {
      await destination.close();
    }
  });
});

describe('revealing the values of an answer', () => {
  it('answers the answer as received, uncached; History records the reveal by the request id, never the value', async () => {
    const card = await cardToken('card_number', PAN);
    const exchange = await sendThroughProxy(current.bench.engine.echoUrl!, `{"card": "{{ ${card} }}"}`);
    const id = exchange.entry!.id;
    const revealed = await current.bench.workbench('revealAnswer', { id });
    expect(revealed.status).toBe(200);
    expect(revealed.headers['cache-control']).toBe('no-store');
    const body = Buffer.from(revealed.body.body_base64, 'base64').toString('utf8');
    expect(JSON.parse(JSON.parse(body).body)).toEqual({ card: PAN });
    expect(headerOf(revealed.body.headers, 'content-type')).toBe(headerOf(received(exchange).headers, 'content-type'));

    await current.bench.engine.history.flush();
    const [entry] = await current.bench.engine.history.list(1);
    expect(entry).toMatchObject({
      kind: 'workbench',
      method: 'REVEAL',
      path: '/proxy/v1/charges',
      status: 200,
      application_id: current.backend,
      details: { reveal: { target: 'answer', entry_id: id, token_ids: [card] } },
    });
    expect(JSON.stringify(await current.bench.engine.history.list(100))).not.toContain(PAN);
  });

  it('names a request whose answer it does not hold, and records that it could not', async () => {
    const missing = await current.bench.workbench('revealAnswer', { id: 'no-such-entry' });
    expect(missing.status).toBe(404);
    await current.bench.engine.history.flush();
    const [entry] = await current.bench.engine.history.list(1);
    expect(entry).toMatchObject({ method: 'REVEAL', status: 404, details: { reveal: { target: 'answer', entry_id: 'no-such-entry' } } });
  });

  it('forgets every answer when the vault is wiped', async () => {
    const card = await cardToken('card_number', PAN);
    const exchange = await sendThroughProxy(current.bench.engine.echoUrl!, `{"card": "{{ ${card} }}"}`);
    expect((await current.bench.workbench('revealAnswer', { id: exchange.entry!.id })).status).toBe(200);
    expect((await current.bench.workbench('wipeVault', { confirm: 'wipe' })).status).toBe(200);
    expect((await current.bench.workbench('revealAnswer', { id: exchange.entry!.id })).status).toBe(404);
  });
});

describe('the same answer to any other client', () => {
  it('is relayed as the destination sent it: the proxy is faithful, only the workbench masks', async () => {
    const card = await cardToken('card_number', PAN);
    const destination = await startServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(200, { 'x-card': grouped(PAN, ' ') });
        res.end(Buffer.concat(chunks));
      });
    });
    try {
      const body = `{"card": "{{ ${card} }}"}`;
      const outside = await request(`${current.bench.url}/proxy`, {
        method: 'POST',
        headers: { 'BT-API-KEY': current.bench.privateKey, 'BT-PROXY-URL': destination.url, 'content-type': 'application/json' },
        body,
      });
      expect(outside.statusCode).toBe(200);
      expect(outside.headers['x-card']).toBe(grouped(PAN, ' '));
      expect(await outside.body.text()).toBe(`{"card": "${PAN}"}`);
      // The workbench, sending the same, sees the masks.
      const exchange = await sendThroughProxy(destination.url, body);
      expect(bodyOf(exchange)).toBe(`{"card": "${MASK}"}`);
      expect(headerOf(received(exchange).headers, 'x-card')).toBe(MASK);
    } finally {
      await destination.close();
    }
  });
});

describe('masking a large answer', () => {
  it('holds up no other client over a second (a stall probe)', async () => {
    const cards = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? cardToken('card', { number: PAN, expiration_month: 12, expiration_year: 2030, cvc: `${100 + i}` }) : cardToken('token', { holder: `Holder Number ${i}` }))),
    );
    // About 1 MB that repeats every value, in every form, many times over.
    const line = `${grouped(PAN, ' ')} ${PAN} ${JSON.stringify(JSON.stringify({ card: PAN }))} Holder+Number+8 ${Buffer.from(PAN).toString('base64')}\n`;
    const answer = line.repeat(Math.ceil(1024 * 1024 / line.length));
    const destination = await startServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(answer));
    });
    try {
      const body = JSON.stringify(Object.fromEntries(cards.map((id, i) => [`card${i}`, `{{ ${id} }}`]))).replaceAll('"{{', '{{').replaceAll('}}"', '}}');
      let sending = true;
      const sent = sendThroughProxy(destination.url, body).finally(() => (sending = false));
      const waits: number[] = [];
      // Probes one after another for as long as the Composer's request runs: each must be answered within the bound.
      while (sending) {
        const started = performance.now();
        const probe = await request(`${current.bench.url}/tokens?size=1`, { headers: { 'BT-API-KEY': current.bench.privateKey }, signal: AbortSignal.timeout(1000) });
        await probe.body.text();
        expect(probe.statusCode).toBe(200);
        waits.push(performance.now() - started);
      }
      // The engine runs in this process: a stalled loop holds up the probe's own timeout too, so the wait is measured.
      expect(waits.length).toBeGreaterThan(0);
      expect(Math.max(...waits)).toBeLessThan(1000);
      const exchange = await sent;
      expect(bodyOf(exchange)).not.toContain(PAN);
      expect(bodyOf(exchange)).not.toContain('Holder+Number+8');
      expect(received(exchange).masked).toBeGreaterThan(answer.length / line.length);
    } finally {
      await destination.close();
    }
  });
});
