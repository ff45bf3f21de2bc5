import { Agent } from 'undici';
import { expectReply } from './vault-client';
import { mixedRequest, sameData, type TokenExpectation } from './vault-data';

export interface FilledToken extends TokenExpectation {
  id: string;
}

const BATCH = 100; // the most tokens one POST /tokenize may create
const IN_FLIGHT = 3;

/**
 * Fills the vault through POST /tokenize (arrays of 100 token requests, a few calls in flight), checking that every
 * token comes back masked as expected. Returns the tokens with their ids, the reads' sample space.
 */
export async function fillVault(url: string, apiKey: string, count: number): Promise<FilledToken[]> {
  const dispatcher = new Agent({ connections: IN_FLIGHT });
  const filled: FilledToken[] = new Array(count);
  let nextSeq = 0;

  async function sendBatch(first: number, size: number): Promise<void> {
    const made = Array.from({ length: size }, (_, i) => mixedRequest(first + i));
    const text = await expectReply(200, url, apiKey, 'POST', '/tokenize', made.map((m) => m.request), dispatcher);
    const views = JSON.parse(text) as { id: string; type: string; data?: unknown }[];
    views.forEach((view, i) => {
      const { expected } = made[i];
      if (view.type !== expected.type || !sameData(view.data, expected.maskedData)) {
        throw new Error(`POST /tokenize: token ${view.id} (${view.type}) did not come back masked as expected`);
      }
      filled[first + i] = { id: view.id, ...expected };
    });
  }

  async function worker(): Promise<void> {
    while (nextSeq < count) {
      const first = nextSeq;
      const size = Math.min(BATCH, count - first);
      nextSeq += size;
      await sendBatch(first, size);
    }
  }

  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    await dispatcher.close();
  }
  return filled;
}
