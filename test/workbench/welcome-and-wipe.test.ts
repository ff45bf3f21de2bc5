import { afterEach, describe, expect, it } from 'vitest';
import { callMethod, problemOf } from '../../electron/engine';
import type { TransactionView } from '../../shared/workbench/transaction-contract';
import { welcomeSchema } from '../../shared/workbench/vault-contract';
import { openDatabase } from '../../electron/engine/storage/database';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/** The welcome view's keys (held in memory, given once) and the wipe that makes a vault new again. */
const PAN = '4242424242424242';
let t: TestEngine | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const take = async (engine: TestEngine) => welcomeSchema.parse(await engine.engine.workbench.takeWelcome({}));

describe('the welcome view of a new vault', () => {
  it("gives the first-start keys once, the ones the engine made, and they work", async () => {
    t = await startTestEngine({ inMemory: true, keepWelcome: true });
    const welcome = await take(t);
    expect(welcome.keys).toEqual({
      management: { application_id: t.engine.bootstrapKeys!.management.application_id, application_name: 'Tokenbench management', key: t.managementKey },
      private: { application_id: t.engine.bootstrapKeys!.private.application_id, application_name: 'Tokenbench backend', key: t.privateKey },
    });
    expect((await t.call('GET', '/applications', { key: welcome.keys!.management.key })).status).toBe(200);
    expect(await take(t)).toEqual({ keys: null });

    // Shown, they are a reveal in history, by application and last four; taken again, nothing was shown to record.
    await t.engine.history.flush();
    const shown = (await t.engine.history.list(10)).filter((entry) => entry.kind === 'workbench');
    const { management, private: backend } = t.engine.bootstrapKeys!;
    expect(shown).toEqual([
      expect.objectContaining({
        method: 'REVEAL',
        status: 200,
        details: {
          reveal: {
            target: 'keys',
            keys: [
              { application_id: management.application_id, key_id: management.id, key_last4: management.key.slice(-4) },
              { application_id: backend.application_id, key_id: backend.id, key_last4: backend.key.slice(-4) },
            ],
            summary: `Showed the new vault's first keys: “Tokenbench management”'s …${management.key.slice(-4)}, and “Tokenbench backend”'s …${backend.key.slice(-4)}`,
          },
        },
      }),
    ]);
    expect(JSON.stringify(shown)).not.toContain(management.key);
  });

  it('has nothing to give for a vault that was not new at this start', async () => {
    const dataDir = tempDir();
    t = await startTestEngine({ dataDir, keepWelcome: true });
    await t.stop();
    t = await startTestEngine({ dataDir, keepWelcome: true });
    expect(await take(t)).toEqual({ keys: null });
  });

  it('gives them only to the workbench session', async () => {
    t = await startTestEngine({ inMemory: true, workbenchRoutes: true, keepWelcome: true });
    expect((await t.workbench('takeWelcome', {}, { session: null })).status).toBe(401);
    expect((await t.workbench('takeWelcome', {}, { session: 'not-this-runs-session' })).status).toBe(401);
    const taken = await t.workbench('takeWelcome', {});
    expect(taken.status).toBe(200);
    expect(taken.body.keys.private.key).toBe(t.privateKey);
    expect(taken.headers['cache-control']).toBe('no-store');
  });
});

describe('wiping the vault', () => {
  it('leaves every key working when it fails and rolls back', async () => {
    const dataDir = tempDir();
    t = await startTestEngine({ dataDir });
    // Another connection to the same file refuses the first applications the wipe makes again.
    const other = openDatabase({ dataDir });
    other.exec("CREATE TRIGGER refuse BEFORE INSERT ON applications BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    other.close();
    await expect(callMethod(t.engine.workbench, 'wipeVault', { confirm: 'wipe' })).rejects.toThrow('disk full');
    await new Promise((resolve) => setImmediate(resolve));
    expect((await t.call('GET', '/applications', { key: t.managementKey })).status).toBe(200);
    expect(t.engine.status()).toMatchObject({ applicationCount: 2 });
  });

  it('empties it whole, rolls back what was open, and makes it new with fresh first keys', async () => {
    t = await startTestEngine({ inMemory: true });
    const card = await t.call('POST', '/tokens', { key: t.privateKey, body: { id: 'reused-id', type: 'card_number', data: PAN } });
    expect(card.status).toBe(201);
    // Detokenized once: the decrypted token is held in memory for a few seconds now.
    const detokenized = await t.call('POST', '/detokenize', { key: t.privateKey, body: { pan: '{{ reused-id }}' } });
    expect(detokenized.body).toEqual({ pan: PAN });
    const tx = (await t.call('POST', '/transactions', { key: t.privateKey })).body.id;
    await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'staged' }, headers: { 'BT-TRANSACTION-ID': tx } });
    await t.engine.workbench.changeLimits({ maxExpressions: 5 });
    await take(t);
    const heard: TransactionView[] = [];
    t.engine.events.on('transaction', (view) => heard.push(view));

    expect(await t.engine.workbench.wipeVault({ confirm: 'wipe' })).toEqual({ tokens: 1, transactions: 1, applications: 2 });
    expect(heard.map((view) => [view.id, view.state])).toEqual([[tx, 'rolled_back']]);
    expect(t.engine.status()).toMatchObject({ tokenCount: 0, applicationCount: 2 });
    expect(await t.engine.workbench.listTransactions({ limit: 100 })).toEqual({ transactions: [], next: null, counts: { kept: 0, open: 0, committed: 0, rolled_back: 0, expired: 0 } });
    expect((await t.call('GET', '/tokens/reused-id', { key: t.privateKey })).status).toBe(401);

    const { keys } = await take(t);
    expect(keys!.private.key).not.toBe(t.privateKey);
    // Gone from memory too, and the id is free again.
    expect((await t.call('GET', '/tokens/reused-id', { key: keys!.private.key })).status).toBe(404);
    const again = await t.call('POST', '/tokens', { key: keys!.private.key, body: { id: 'reused-id', type: 'card_number', data: '5555555555554444' } });
    expect(again.status).toBe(201);
    expect((await t.call('GET', '/tokens/reused-id', { key: keys!.private.key })).body.data).toBe('XXXXXXXXXXXX4444');
    // The settings stay.
    expect(t.engine.config.maxExpressions).toBe(5);
  });

  it('asks for the word', async () => {
    t = await startTestEngine({ inMemory: true });
    let failure: unknown;
    await callMethod(t.engine.workbench, 'wipeVault', { confirm: 'yes' }).catch((error: unknown) => (failure = error));
    expect(problemOf(failure)).toMatchObject({ status: 400, errors: { confirm: ['Send {"confirm": "wipe"} to wipe the vault'] } });
    expect(t.engine.status().applicationCount).toBe(2);
  });
});
