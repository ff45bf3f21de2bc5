import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestCheckSchema, type BodyEdit, type RequestCheck, type RequestCheckQuery } from '../../shared/workbench/composer-contract';
import { WorkbenchError, type Problem } from '../../shared/workbench/transport';
import { bodyEdit, draftChecker, type WholeCheckQuery } from '../../renderer/src/pages/composer/checked-draft';
import type { TestEngine } from '../support/test-engine';
import { PAN, startWorkbenchEngine } from './support/workbench-engine';

/**
 * The Composer's checks of a draft as it changes: the page sends each body as its change since the last check, and the
 * engine keeps the last body of each draft to apply it to. Over HTTP, with the method table's validation, against a
 * real engine; the page's own draftChecker makes the calls.
 */
let bench: TestEngine;
let backend: string;
let card: string;

const composed = (body: string | null): WholeCheckQuery => ({
  application_id: backend,
  target_id: null,
  method: 'POST',
  path: '/proxy',
  headers: [
    ['BT-PROXY-URL', bench.engine.echoUrl!],
    ['Content-Type', 'application/json'],
  ],
  body,
});

/** checkRequest over HTTP as the page's transport makes it, each call's status noted. */
function overHttp(statuses: number[] = []) {
  return async (query: RequestCheckQuery): Promise<RequestCheck> => {
    const reply = await bench.workbench('checkRequest', query);
    statuses.push(reply.status);
    if (reply.status !== 200) throw new WorkbenchError(reply.body as Problem);
    return requestCheckSchema.parse(reply.body);
  };
}

const wholeCheck = async (body: string | null) => overHttp()(composed(body));

/** A small deterministic generator, so a failing sequence can be replayed. */
function random(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % below;
  };
}

describe('bodyEdit', () => {
  it('never splits a character made of two code units, even one sharing a code unit with the one it replaces', () => {
    // 😀 is D83D DE00; 😁 shares its first code unit, 🈀 (D83C DE00) its second.
    expect(bodyEdit('a😀b', 'a😁b', 1)).toEqual({ base: 1, from: 1, to: 3, insert: '😁' });
    expect(bodyEdit('a😀b', 'a🈀b', 1)).toEqual({ base: 1, from: 1, to: 3, insert: '🈀' });
  });

  it('finds one changed character anywhere in a long body', () => {
    const before = 'a'.repeat(4096);
    for (const at of [0, 1, 1022, 1023, 1024, 1025, 2047, 2048, 3071, 3072, 3073, 4094, 4095]) {
      const after = `${before.slice(0, at)}b${before.slice(at + 1)}`;
      expect(bodyEdit(before, after, 1)).toEqual({ base: 1, from: at, to: at + 1, insert: 'b' });
    }
  });

  it('turns the body before into the body after', () => {
    const next = random(7);
    const pieces = ['a', '{{ ', ' }}', '|', '😀', '😁', '🈀', 'é', '\n', '"'];
    let before = '';
    for (let i = 0; i < 500; i++) {
      // Changed as typing does, in whole characters; some are two code units that share one of them with another (😀 😁 🈀).
      const characters = Array.from(before);
      characters.splice(next(characters.length + 1), next(4), ...Array.from(pieces[next(pieces.length)].repeat(next(3))));
      const after = characters.join('');
      const edit = bodyEdit(before, after, i);
      expect(before.slice(0, edit.from) + edit.insert + before.slice(edit.to)).toBe(after);
      before = after;
    }
  });
});

describe('checkRequest on a draft', () => {
  beforeEach(async () => {
    bench = await startWorkbenchEngine();
    backend = bench.engine.bootstrapKeys!.private.application_id;
    card = (await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } })).body.id;
  });
  afterEach(() => bench.stop());

  it('gives a draft checked change by change the flags of its whole body, sending only the changes', async () => {
    const sent: RequestCheckQuery[] = [];
    const check = draftChecker(async (query) => (sent.push(query), overHttp()(query)));
    const padding = 'x'.repeat(20_000);
    const withNumber = (expression: string) => `{\n  "number": "${expression}",\n  "note": "${padding}"\n}`;
    const bodies = [`{{ ${card} }}`, `{{ ${card} | nope }}`, `{{ ${card} | last4 }}`, `{{ ${card} | last4`, `{{ ${card} }}`].map(withNumber);
    for (const body of bodies) expect(await check(composed(body))).toEqual(await wholeCheck(body));
    expect((await wholeCheck(bodies[1])).flags.map((flag) => flag.kind)).toContain('broken_expression');
    expect(typeof sent[0].body).toBe('string');
    // After the first, each check sent a few characters, not the 20 KB body.
    for (const query of sent.slice(1)) expect(JSON.stringify(query).length).toBeLessThan(500);
    // A body taken away and brought back.
    expect(await check(composed(null))).toEqual(await wholeCheck(null));
    expect(await check(composed(bodies[1]))).toEqual(await wholeCheck(bodies[1]));
  });

  it('answers 409 to a change of a body it does not hold, and the page then sends the body whole', async () => {
    const unknown = await bench.workbench('checkRequest', { ...composed(null), draft: { id: 'never-checked', revision: 4, edit: { base: 3, from: 0, to: 0, insert: 'x' } } });
    expect(unknown.status).toBe(409);
    expect(unknown.body.detail).toBe('The engine no longer holds revision 3 of draft never-checked: send the whole body.');

    const statuses: number[] = [];
    const check = draftChecker(overHttp(statuses));
    const body = `{ "number": "{{ ${card} }}" }`;
    await check(composed(body));
    // Eight other pages' drafts push this one out of what the engine keeps.
    for (let page = 0; page < 8; page++) await draftChecker(overHttp())(composed(`{ "page": ${page} }`));
    const broken = body.replace(' }}', ' | nope }}');
    expect(await check(composed(broken))).toEqual(await wholeCheck(broken));
    expect(statuses).toEqual([200, 409, 200]);
  });

  it('refuses a malformed change with 400 and keeps the body it had', async () => {
    const draft = { id: 'draft-1', revision: 1 };
    const body = `{ "number": "{{ ${card} }}" }`;
    expect((await bench.workbench('checkRequest', { ...composed(body), draft })).status).toBe(200);
    const edits = [
      { change: { base: 1, from: 0, to: 1000, insert: '' }, detail: `The edit ends at 1000, after the end of the body (${body.length})` },
      { change: { base: 1, from: 5, to: 4, insert: '' }, detail: 'from must not be after to' },
    ];
    for (const { change, detail } of edits) {
      const refused = await bench.workbench('checkRequest', { ...composed(null), draft: { id: 'draft-1', revision: 2, edit: change } });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain(detail);
    }
    const withBody = await bench.workbench('checkRequest', { ...composed(body), draft: { id: 'draft-1', revision: 2, edit: { base: 1, from: 0, to: 0, insert: '' } } });
    expect(withBody.status).toBe(400);
    expect(JSON.stringify(withBody.body)).toContain("A draft's edit stands for the body: send the body as null with it");
    // Revision 1 is still what the engine holds: a change of it applies.
    const at = body.indexOf(' }}');
    const changed = await bench.workbench('checkRequest', { ...composed(null), draft: { id: 'draft-1', revision: 2, edit: { base: 1, from: at, to: at, insert: ' | nope' } } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual(await wholeCheck(body.replace(' }}', ' | nope }}')));
  });
});

describe('the drafts the engine keeps', () => {
  beforeEach(async () => {
    bench = await startWorkbenchEngine();
    backend = bench.engine.bootstrapKeys!.private.application_id;
  });
  afterEach(() => bench.stop());

  it('keep at most 16 MiB between them: past that the drafts checked longest ago are forgotten, and send their body whole again', async () => {
    expect((await bench.workbench('changeLimits', { maxBodyBytes: 10 * 1024 * 1024 })).status).toBe(200);
    // Straight to the model: a workbench call over HTTP carries at most 1 MiB, IPC has no such bound.
    const model = bench.engine.workbench;
    const check = async (id: string, body: string | null, revision: number, edit?: BodyEdit) => {
      try {
        await model.checkRequest({ ...composed(body), draft: { id, revision, ...(edit && { edit }) } });
        return 200;
      } catch (error) {
        return (error as { status: number }).status;
      }
    };
    const nineMiB = 'x'.repeat(9 * 1024 * 1024);
    expect(await check('a', nineMiB, 1)).toBe(200);
    expect(await check('b', nineMiB, 1)).toBe(200);
    expect(await check('c', '{}', 1)).toBe(200);
    // 18 MiB kept: "a", checked longest ago, went.
    expect(await check('a', null, 2, { base: 1, from: 0, to: 1, insert: 'y' })).toBe(409);
    expect(await check('b', null, 2, { base: 1, from: 0, to: 1, insert: 'y' })).toBe(200);
    expect(await check('c', null, 2, { base: 1, from: 0, to: 0, insert: ' ' })).toBe(200);
  });
});

describe('checkRequest under the body limit', () => {
  const LIMIT = 1000;
  beforeEach(async () => {
    bench = await startWorkbenchEngine();
    backend = bench.engine.bootstrapKeys!.private.application_id;
    // Set as Settings sets it, so a test can change it again; `--max-body` sets the same limit at start.
    expect((await bench.workbench('changeLimits', { maxBodyBytes: LIMIT })).status).toBe(200);
  });
  afterEach(() => bench.stop());

  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
  const checkDraft = (body: string | null, draft: object) => bench.workbench('checkRequest', { ...composed(body), draft });
  const overLimit = (size: number, limit = LIMIT) =>
    `The body is ${size.toLocaleString('en')} bytes, over the body limit of ${limit.toLocaleString('en')} bytes (--max-body)`;

  it('refuses with 413 a change that would take the kept body past the limit, counted in UTF-8 bytes, and keeps the body it had', async () => {
    // 400 characters of two bytes each: 809 bytes, though 409 characters.
    const body = `{"a": "${'é'.repeat(400)}"}`;
    expect(bytes(body)).toBe(809);
    expect((await checkDraft(body, { id: 'draft-1', revision: 1 })).status).toBe(200);
    const at = body.indexOf('"}');
    // 100 more: 509 characters, but 1,009 bytes.
    const refused = await checkDraft(null, { id: 'draft-1', revision: 2, edit: { base: 1, from: at, to: at, insert: 'é'.repeat(100) } });
    expect(refused.status).toBe(413);
    expect(refused.body.detail).toBe(overLimit(1009));
    // Revision 1 is still what the engine holds: a change of it that stays within the limit applies, up to the limit itself.
    const fits = body.slice(0, at) + 'x'.repeat(LIMIT - 809) + body.slice(at);
    const changed = await checkDraft(null, { id: 'draft-1', revision: 3, edit: { base: 1, from: at, to: at, insert: 'x'.repeat(LIMIT - 809) } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual(await wholeCheck(fits));
  });

  it('refuses a whole body over the limit with 413, draft or not, and keeps the draft it had', async () => {
    const body = `{"a": "${'x'.repeat(900)}"}`;
    expect((await checkDraft(body, { id: 'draft-1', revision: 1 })).status).toBe(200);
    const whole = body.replace('x', '😀'.repeat(25));
    expect(bytes(whole)).toBe(1008);
    const refused = await checkDraft(whole, { id: 'draft-1', revision: 2 });
    expect(refused.status).toBe(413);
    expect(refused.body.detail).toBe(overLimit(1008));
    expect((await bench.workbench('checkRequest', composed(whole))).body.detail).toBe(overLimit(1008));
    const changed = await checkDraft(null, { id: 'draft-1', revision: 3, edit: { base: 1, from: 7, to: 8, insert: 'y' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual(await wholeCheck(body.replace('x', 'y')));
  });

  it('never lets changes of under a megabyte each grow a kept body past the limit', async () => {
    let body = '';
    let revision = 0;
    const statuses: number[] = [];
    expect((await checkDraft(body, { id: 'growing', revision })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const insert = 'x'.repeat(300);
      const reply = await checkDraft(null, { id: 'growing', revision: revision + 1, edit: { base: revision, from: body.length, to: body.length, insert } });
      statuses.push(reply.status);
      if (reply.status === 200) [body, revision] = [body + insert, revision + 1];
    }
    expect(statuses).toEqual([200, 200, 200, 413, 413]);
    expect(bytes(body)).toBe(900);
  });

  it('applies a limit changed in Settings at the next check', async () => {
    const body = 'x'.repeat(LIMIT);
    expect((await checkDraft(body, { id: 'draft-1', revision: 1 })).status).toBe(200);
    expect((await bench.workbench('changeLimits', { maxBodyBytes: 999 })).status).toBe(200);
    const refused = await checkDraft(null, { id: 'draft-1', revision: 2, edit: { base: 1, from: 0, to: 0, insert: '' } });
    expect(refused.status).toBe(413);
    expect(refused.body.detail).toBe(overLimit(1000, 999));
    expect((await checkDraft(null, { id: 'draft-1', revision: 3, edit: { base: 1, from: 0, to: 1, insert: '' } })).status).toBe(200);
  });

  it('on a 413 the page keeps sending changes of the body the engine still holds, and its checks recover', async () => {
    const sent: RequestCheckQuery[] = [];
    const statuses: number[] = [];
    const check = draftChecker(async (query) => (sent.push(query), overHttp(statuses)(query)));
    const body = `{"a": "${'x'.repeat(900)}"}`;
    await check(composed(body));
    const over = body.replace('x', 'x'.repeat(200));
    const refusal = await check(composed(over)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(WorkbenchError);
    expect((refusal as WorkbenchError).message).toBe(overLimit(bytes(over)));
    const back = body.replace('x', 'y');
    expect(await check(composed(back))).toEqual(await wholeCheck(back));
    expect(statuses).toEqual([200, 413, 200]);
    // The check after the refusal sent one character, not the body.
    expect(sent[2].body).toBeNull();
    expect(sent[2].draft?.edit).toEqual({ base: 1, from: 7, to: 8, insert: 'y' });
  });
});
