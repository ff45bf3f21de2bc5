import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callMethod, problemOf } from '../../electron/engine';
import { historyAnswerSchema, historyEntrySchema, type HistoryEntry } from '../../shared/workbench/history-contract';
import { engineSettingsSchema } from '../../shared/workbench/settings-contract';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The destination's answer body in history: kept only when Settings asks, bounded, and masked in the engine before
 * anything is written: every value the request detokenized, in the forms a destination sends it back, and every card
 * number. A real destination on loopback echoes the plaintext back; neither history's files, nor what it answers, nor
 * its HAR may hold any of it.
 */
const PAN = '4000056655665556';
const SSN = '078-05-1120';
const SECRET = 'tell "no one" \\ ever';
/** A card number the request never sent: the destination made it up, and only its Luhn check gives it away. */
const OTHER_CARD = '5555 5555 5555 4444';

const spaced = (digits: string) => digits.match(/.{1,4}/g)!.join(' ');
const dashed = (digits: string) => digits.match(/.{1,4}/g)!.join('-');
const formEncoded = (text: string) => new URLSearchParams([['', text]]).toString().slice(1);
/** Every form of the plaintext that must not be kept. */
const PLAINTEXT = [
  PAN,
  spaced(PAN),
  dashed(PAN),
  SSN,
  SSN.replaceAll('-', ''),
  SECRET,
  JSON.stringify(SECRET).slice(1, -1),
  formEncoded(SECRET),
  OTHER_CARD,
  OTHER_CARD.replaceAll(' ', ''),
];

/** What the destination answers, given what it received: the plaintext back in many shapes. */
function echoed(received: { pan: string; ssn: string; secret: string }): string {
  const { pan, ssn, secret } = received;
  return [
    '{',
    `"plain": "${pan}", "spaced": "${spaced(pan)}", "dashed": "${dashed(pan)}", "number": ${pan},`,
    `"nested": {"card": {"number": "${pan}", "last4": "${pan.slice(-4)}"}},`,
    `"sentence": "charged card ${pan} for 12.00", "glued": "ref${pan}x", "grouped": "id 77 ${spaced(pan)} 12",`,
    `"ssn": "${ssn}", "ssn_digits": "${ssn.replaceAll('-', '')}", "secret": ${JSON.stringify(secret)}, "secret_form": "q=${formEncoded(secret)}",`,
    `"other": "${OTHER_CARD}", "other_plain": "${OTHER_CARD.replaceAll(' ', '')}", "amount": 1200, "order": "ord_1234567"`,
    '}',
  ].join('\n');
}

let destination: http.Server;
let destinationUrl: string;
beforeAll(async () => {
  destination = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = JSON.parse(Buffer.concat(chunks).toString()) as { pan: string; ssn: string; secret: string };
      const body = echoed(received);
      if (req.url === '/gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(body));
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`${received.pan}\n${'x'.repeat(100 * 1024)}`);
      } else if (req.url === '/binary') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]), Buffer.from(received.pan)]));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      }
    });
  });
  await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
  destinationUrl = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
});
afterAll(() => destination.close());

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function tokens(bench: TestEngine) {
  const create = async (type: string, data: unknown) => (await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type, data } })).body.id as string;
  return { pan: await create('card_number', PAN), ssn: await create('social_security_number', SSN), secret: await create('token', SECRET) };
}

/** Sends the three tokens' values through the proxy to `path` of the destination, and answers its history entry. */
async function proxied(bench: TestEngine, ids: { pan: string; ssn: string; secret: string }, path: string): Promise<HistoryEntry> {
  const trace = `answer-${path.slice(1) || 'json'}-${Math.random().toString(36).slice(2)}`;
  const res = await bench.call('POST', `/proxy${path}`, {
    key: bench.privateKey,
    body: { pan: `{{ ${ids.pan} }}`, ssn: `{{ ${ids.ssn} }}`, secret: `{{ ${ids.secret} }}` },
    headers: { 'BT-PROXY-URL': destinationUrl, 'BT-TRACE-ID': trace },
  });
  expect(res.status).toBe(200);
  await bench.engine.history.flush();
  const entry = (await bench.engine.history.list(20)).find((candidate) => candidate.trace_id === trace)!;
  return historyEntrySchema.parse(entry);
}

/** What the entry says of its kept answer, with the masked text read as History reads it: one entry at a time. */
async function answerOf(bench: TestEngine, entry: HistoryEntry) {
  const body = entry.proxy!.response!.body!;
  // A list never carries the text, which may be large.
  expect(body.text).toBeUndefined();
  if (body.bytes === null) return { ...body, text: null };
  const { text } = historyAnswerSchema.parse(await callMethod(bench.engine.workbench, 'getHistoryAnswer', { id: entry.id }));
  expect(Buffer.byteLength(text)).toBe(body.bytes);
  return { ...body, text };
}

function expectNoPlaintext(text: string, where: string): void {
  for (const plain of PLAINTEXT) expect(text.includes(plain), `${JSON.stringify(plain)} in ${where}`).toBe(false);
  // Whatever separates them: no run of the card's digits survives.
  expect(text.replace(/\D/g, '').includes(PAN), `the card's digits in ${where}`).toBe(false);
}

/** Every file history writes in the data folder (its SQLite file and journal), read as bytes. */
function expectNoPlaintextInHistoryFiles(dataDir: string): void {
  const files = readdirSync(dataDir).filter((name) => name.startsWith('history'));
  expect(files).toContain('history.sqlite');
  for (const name of files) expectNoPlaintext(readFileSync(join(dataDir, name)).toString('latin1'), name);
}

const changeAnswers = async (bench: TestEngine, request: unknown) => {
  try {
    return { ok: true as const, settings: engineSettingsSchema.parse(await callMethod(bench.engine.workbench, 'changeHistoryAnswers', request)) };
  } catch (error) {
    return { ok: false as const, problem: problemOf(error) };
  }
};

describe("the destination's answer in history", () => {
  it('is not kept unless Settings asks, and the HAR says so', async () => {
    t = await startTestEngine();
    const entry = await proxied(t, await tokens(t), '/');
    expect(entry.proxy?.response?.bytes).toBeGreaterThan(0);
    expect(entry.proxy?.response?.body).toBeUndefined();
    const har = (await callMethod(t.engine.workbench, 'exportHar', { ids: [entry.id] })) as { log: { entries: { response: { content: { text?: string; comment: string } } }[] } };
    expect(har.log.entries[0].response.content).toMatchObject({ comment: expect.stringContaining('Settings') });
    expect(har.log.entries[0].response.content.text).toBeUndefined();
    expectNoPlaintextInHistoryFiles(t.dataDir!);
  });

  it('once asked, is kept masked: each detokenized value in every form it comes back in, and every card number', async () => {
    t = await startTestEngine();
    const changed = await changeAnswers(t, { historyAnswers: true });
    expect(changed.ok && changed.settings.answers.historyAnswers).toEqual({ value: true, default: false, stored: true, pinnedBy: null });
    const ids = await tokens(t);
    const entry = await proxied(t, ids, '/');
    const body = await answerOf(t, entry);
    expect(body.not_kept).toBeNull();
    expectNoPlaintext(body.text!, 'the entry');
    // What is not secret stays readable; a detokenized value shows its token's mask however it was written back (a
    // bare JSON number too), a form-encoded one the mask form-encoded, a slice of its digits X's, another card number
    // its last four.
    expect(body.text).toContain('"number": XXXXXXXXXXXX5556,');
    expect(JSON.parse(body.text!.replace('"number": XXXXXXXXXXXX5556,', ''))).toMatchObject({
      plain: 'XXXXXXXXXXXX5556',
      spaced: 'XXXXXXXXXXXX5556',
      dashed: 'XXXXXXXXXXXX5556',
      nested: { card: { number: 'XXXXXXXXXXXX5556', last4: 'XXXX' } },
      sentence: 'charged card XXXXXXXXXXXX5556 for 12.00',
      glued: 'refXXXXXXXXXXXX5556x',
      ssn: 'XXX-XX-1120',
      ssn_digits: 'XXX-XX-1120',
      secret: '[redacted]',
      secret_form: 'q=%5Bredacted%5D',
      other: 'XXXX XXXX XXXX 4444',
      amount: 1200,
      order: 'ord_1234567',
    });
    expect(body.masked).toBeGreaterThanOrEqual(12);

    // Nor in what History answers, the HAR it exports, or its files, once written and once the engine has stopped.
    const listed = JSON.stringify(await callMethod(t.engine.workbench, 'listHistory', { limit: 10 }));
    expectNoPlaintext(listed, 'listHistory');
    const har = (await callMethod(t.engine.workbench, 'exportHar', { ids: [entry.id] })) as { log: { entries: { response: { content: { text?: string } } }[] } };
    expect(har.log.entries[0].response.content.text).toBe(body.text);
    expectNoPlaintext(JSON.stringify(har), 'the HAR');
    expectNoPlaintextInHistoryFiles(t.dataDir!);
    const dataDir = t.dataDir!;
    await t.engine.stop();
    expectNoPlaintextInHistoryFiles(dataDir);
  });

  it('is decompressed to be masked and kept; past the bound, or not text, it is a note of why, never the bytes', async () => {
    t = await startTestEngine({ historyAnswers: true });
    const ids = await tokens(t);
    const gzipped = await answerOf(t, await proxied(t, ids, '/gzip'));
    expectNoPlaintext(gzipped.text!, 'the gzipped answer');
    expect(gzipped.text).toContain('"plain": "XXXXXXXXXXXX5556"');

    const bigEntry = await proxied(t, ids, '/big');
    expect(await answerOf(t, bigEntry)).toEqual({ bytes: null, text: null, masked: 0, not_kept: 'not kept: 102,417 bytes, over the 65,536-byte bound' });
    const binary = await answerOf(t, await proxied(t, ids, '/binary'));
    expect(binary).toEqual({ bytes: null, text: null, masked: 0, not_kept: 'not kept: 22 bytes of image/png, not UTF-8 text' });
    // An answer not kept, or an entry History does not have, is said so, never an empty body.
    expect(problemOf(await callMethod(t.engine.workbench, 'getHistoryAnswer', { id: bigEntry.id }).catch((error: unknown) => error))).toMatchObject({ status: 409 });
    expect(problemOf(await callMethod(t.engine.workbench, 'getHistoryAnswer', { id: 'no-such-entry' }).catch((error: unknown) => error))).toMatchObject({ status: 404 });

    expect((await changeAnswers(t, { historyAnswerBytes: 200 * 1024 })).ok).toBe(true);
    const bigger = await answerOf(t, await proxied(t, ids, '/big'));
    expect(bigger.not_kept).toBeNull();
    expect(bigger.text!.startsWith('XXXXXXXXXXXX5556\nxxx')).toBe(true);
    expectNoPlaintextInHistoryFiles(t.dataDir!);
  });

  it('refuses a bound out of range, naming the field, and changes nothing; a start flag wins', async () => {
    t = await startTestEngine({ inMemory: true, historyAnswerBytes: 4096 });
    expect(await changeAnswers(t, { historyAnswerBytes: 100 })).toMatchObject({ ok: false, problem: { status: 400, errors: { historyAnswerBytes: [expect.any(String)] } } });
    expect(await changeAnswers(t, { historyAnswers: 'yes' })).toMatchObject({ ok: false, problem: { status: 400, errors: { historyAnswers: [expect.any(String)] } } });
    expect(await changeAnswers(t, { historyAnswerBytes: 8192 })).toMatchObject({
      ok: false,
      problem: { status: 409, detail: '--history-answer-bytes 4096 was given at start and wins over Settings: start the engine without it to change this here' },
    });
    expect(t.engine.config).toMatchObject({ historyAnswers: false, historyAnswerBytes: 4096 });
    // The change is in history, as every Settings change is.
    await t.engine.history.flush();
    const [newest] = await t.engine.history.list(1);
    expect(newest).toMatchObject({ kind: 'workbench', method: 'UPDATE', path: '/settings/history-answers' });
  });
});
