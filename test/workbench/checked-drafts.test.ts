import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestCheckSchema, type RequestCheck, type RequestCheckQuery } from '../../shared/workbench/composer-contract';
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
