/**
 * Event raised to first delivery attempt: an event raised in a committed transaction through the engine's outbox, as
 * the features raise them, until a receiver on loopback has the signed POST; one event at a time. The target (issue
 * 41): at most 100 ms p50.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { resolveConfig } from '../../electron/engine/engine-config';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { ClientActivity } from '../../electron/engine/server/client-activity';
import { Sealer } from '../../electron/engine/storage/crypto';
import { openDatabase } from '../../electron/engine/storage/database';
import { createWebhooks } from '../../electron/engine/webhooks/webhooks';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { tempDir } from '../support/test-engine';
import { percentile } from './load';
import { verdict } from './page-measures';
import type { SuiteResult } from './report';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';

export interface WebhookBenchOptions {
  /** Rounds of EVENTS events each. */
  rounds: number;
  log(line: string): void;
}

const EVENTS = 500;
const WARMUP_EVENTS = 50;
const TARGET_P50_MS = 100;

const round = (ms: number) => Math.round(ms * 100) / 100;

export async function runWebhookBench({ rounds, log }: WebhookBenchOptions): Promise<SuiteResult> {
  // A vault on disk, as a user's: the outbox and the deliveries are written to a WAL file.
  const db = openDatabase({ dataDir: tempDir('tokenbench-webhook-bench-') });
  const outbox = new EventOutbox(unitsOf(db), 'bench-tenant');
  // Each event is raised inside a client's request, and the client waits for its delivery before the next, as a test
  // suite waiting for each webhook does: no delivery overlaps a request, so none is held back.
  const clients = new ClientActivity();
  const webhooks = await createWebhooks({ units: unitsOf(db), sealer: new Sealer(randomBytes(32)), outbox, tenantId: 'bench-tenant', config: resolveConfig({ log }), ownPorts: () => [], clients });
  const waiting = new Map<string, () => void>();
  const receiver = await startWebhookReceiver(({ body }) => {
    waiting.get((body.event.data.token as { id: string }).id)?.();
    return 200;
  });
  receiver.useKey(await webhooks.signer.publicKeyPem());
  await webhooks.store.create({ name: 'bench', url: receiver.url, notify_email: null, events: ['token.created'] }, 'bench');
  webhooks.dispatcher.start();
  const one = async (n: number): Promise<number> => {
    const id = `token-${n}`;
    const arrived = new Promise<number>((resolve) => waiting.set(id, () => resolve(performance.now())));
    const raised = performance.now();
    clients.requestStarted();
    db.transaction(() => outbox.raise({ type: 'token.created', data: () => ({ token: { id, type: 'card_number' } }), actor: { id: 'bench', type: 'application' } }))();
    clients.requestEnded();
    const ms = (await arrived) - raised;
    waiting.delete(id);
    return ms;
  };
  const measured: number[] = [];
  try {
    for (let n = 0; n < WARMUP_EVENTS; n++) await one(-n - 1);
    for (let r = 1; r <= rounds; r++) {
      log(`webhooks: round ${r} of ${rounds}`);
      for (let n = 0; n < EVENTS; n++) measured.push(await one(r * EVENTS + n));
    }
  } finally {
    await webhooks.stop();
    await receiver.close();
    db.close();
  }
  const unverified = receiver.received.filter((d) => !d.rawVerified).length;
  if (unverified > 0) throw new Error(`webhooks: ${unverified} deliveries failed signature verification`);
  const ms = [...measured].sort((a, b) => a - b);
  const p50 = percentile(ms, 50);
  return {
    suite: 'webhooks',
    title: 'Webhooks, event raised to first delivery attempt',
    baselineSystem: '',
    measurements: [],
    tables: [
      {
        title: `One event at a time, ${rounds} round(s) of ${EVENTS} after ${WARMUP_EVENTS} unmeasured`,
        columns: ['what', 'events', 'p50 ms', 'p99 ms', 'slowest ms', 'target'],
        rows: [['token.created raised and committed → signed POST at a loopback receiver', ms.length, round(p50), round(percentile(ms, 99)), round(ms[ms.length - 1]), `≤ ${TARGET_P50_MS} ms p50: ${verdict(p50 <= TARGET_P50_MS)}`]],
      },
    ],
    notes: [
      'The outbox, the dispatcher and the receiver share one process and a vault on disk; every delivery is RSA-PSS signed and verified by the receiver.',
      `Load average ${loadavg()[0].toFixed(2)} when the measuring ended.`,
    ],
  };
}
