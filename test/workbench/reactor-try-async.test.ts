import { afterEach, expect, it } from 'vitest';
import { exchangeSchema, type Exchange } from '../../shared/workbench/composer-contract';
import { reactorResultSchema } from '../../shared/workbench/reactor-contract';
import { createToken, startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The Reactors page's asynchronous Try: react-async through the real route (202 and a request id), then the result
 * asked for through GET /reactors/{id}/results/{request_id} as a client polls it, pending until the run ends, and then
 * with the react's own History entry and its trace.
 */
const PAN = '4242424242424242';
/**
 * Long enough that the first poll finds the run still going: longer than the 2 s the workbench's sender waits for a
 * request's History entry, which a react-async writes only when its run ends.
 */
const CODE = `module.exports = async function (req) {
  await new Promise((resolve) => setTimeout(resolve, 3500));
  return { raw: { last4: req.args.card.slice(-4) } };
};`;
let bench: TestEngine;
afterEach(() => bench?.stop());

const bodyOf = (exchange: Exchange) => (exchange.outcome.kind === 'response' ? JSON.parse(Buffer.from(exchange.outcome.body_base64, 'base64').toString('utf8')) : null);
const headerOf = (exchange: Exchange, name: string) => (exchange.outcome.kind === 'response' ? exchange.outcome.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1] : undefined);

it('reacts asynchronously, answers pending while the code runs, then the result with the react-async entry and its trace', async () => {
  bench = await startTestEngine({ inMemory: true });
  const application_id = bench.engine.bootstrapKeys!.private.application_id;
  const made = await bench.call('POST', '/reactors', { key: bench.managementKey, body: { name: 'slow', code: CODE } });
  expect(made.status).toBe(201);
  const id = made.body.id as string;
  const card = await createToken(bench, 'card_number', PAN);

  const accepted = exchangeSchema.parse(await bench.engine.workbench.tryReactor({ request_id: crypto.randomUUID(), id, application_id, args: `{"card": "{{ ${card} }}"}`, async: true }));
  expect(accepted.outcome).toMatchObject({ kind: 'response', status: 202 });
  const resultId = bodyOf(accepted).asyncReactorRequestId as string;
  const traceId = headerOf(accepted, 'BT-TRACE-ID')!;
  expect(resultId).toMatch(/^[0-9a-f-]{36}$/);
  expect(traceId).toBeTruthy();

  const ask = async () => reactorResultSchema.parse(await bench.engine.workbench.tryReactorResult({ request_id: crypto.randomUUID(), id, application_id, result_id: resultId, trace_id: traceId }));
  const first = await ask();
  expect(first.pending).toBe(true);
  expect(bodyOf(first.exchange)).toEqual({ status: 'pending' });
  expect(first.reacted).toBeNull();

  let last = first;
  for (let tries = 0; last.pending && tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    last = await ask();
  }
  expect(last.pending).toBe(false);
  expect(last.exchange.outcome).toMatchObject({ kind: 'response', status: 200 });
  expect(bodyOf(last.exchange)).toEqual({ raw: { last4: '4242' } });
  // The react-async's own entry: its trace, args in masked, as a synchronous Try's entry has it.
  expect(last.reacted?.path).toBe(`/reactors/${id}/react-async`);
  expect(last.reacted?.reactor?.async_request_id).toBe(resultId);
  expect(last.reacted?.reactor?.trace.map((step) => step.step)).toEqual(['args', 'code', 'result']);
  expect(JSON.stringify(last.reacted)).not.toContain(PAN);
});
