import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { writePreviousVault, type OldToken } from '../support/previous-vault';
import type { ChildServer } from './child-process';
import { percentile } from './load';
import { round } from './page-measures';
import type { Table } from './report';
import { startTokenbench, type TokenbenchInfo } from './servers';
import { mixedRequest } from './vault-data';
import { workbenchCaller } from './workbench-client';

interface Page {
  total: number;
  unindexed: number;
}

/**
 * The fill's mix as the vault held it before card search: cards, `token` tokens with metadata, and (for the SSNs, whose
 * default search indexes the old rows would need rendered) `token` tokens without metadata, which have nothing to index.
 */
function oldToken(seq: number): OldToken {
  const { request } = mixedRequest(seq);
  return request.type === 'social_security_number' ? { type: 'token', data: request.data } : request;
}

/** The private application the first start made, which the searches act as. */
async function privateApplication(call: ReturnType<typeof workbenchCaller>): Promise<string> {
  const applications = (await call('listApplications', {})) as { id: string; type: string }[];
  return applications.find((application) => application.type === 'private')!.id;
}

/**
 * The first start after the upgrade on a vault of `tokens` tokens from before card search: how soon it serves (beside a
 * later start of the same vault), how long it indexes in the background, and how long a search made meanwhile waits
 * (each is made as soon as the one before is answered, so they sample the whole indexing).
 */
export async function measureUpgrade(tokens: number, log: (line: string) => void): Promise<{ table: Table; data: Record<string, unknown> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenbench-upgrade-'));
  let service: ChildServer<TokenbenchInfo> | undefined;
  try {
    log(`tokens-page: writing a vault of ${tokens} tokens as the schema before card search left it`);
    const ids = writePreviousVault(dataDir, Array.from({ length: tokens }, (_, seq) => oldToken(seq)));
    const backlog = Array.from({ length: tokens }, (_, seq) => mixedRequest(seq).request.type !== 'social_security_number').filter(Boolean).length;

    let started = performance.now();
    service = await startTokenbench(dataDir);
    const servingMs = performance.now() - started;
    const servedAt = performance.now();
    const { url, workbenchUrl } = service.info;
    const call = workbenchCaller(url, workbenchUrl!);
    const application = await privateApplication(call);
    const waits: number[] = [];
    let page: Page;
    do {
      const sent = performance.now();
      page = (await call('searchTokens', { application_id: application, query: ids[0], limit: 1 })) as Page;
      waits.push(performance.now() - sent);
    } while (page.unindexed > 0);
    const indexedMs = performance.now() - servedAt;
    const card = (await call('searchTokens', { application_id: application, query: 'visa', limit: 1 })) as Page;
    if (card.total !== Math.ceil(tokens / 3)) throw new Error(`after the upgrade, visa found ${card.total} cards, not ${Math.ceil(tokens / 3)}`);
    await service.stop();
    service = undefined;

    started = performance.now();
    service = await startTokenbench(dataDir);
    const laterMs = performance.now() - started;

    const sorted = [...waits].sort((a, b) => a - b);
    const table: Table = {
      title: `Upgrade: the first start on a vault of ${tokens.toLocaleString('en-US')} tokens from before card search`,
      columns: ['tokens to index', 'start to serving ms', 'a later start ms', 'serving to all indexed ms', 'searches meanwhile', 'their wait p50 ms', 'p95 ms', 'slowest ms'],
      rows: [[backlog, round(servingMs), round(laterMs), round(indexedMs), waits.length, round(percentile(sorted, 50)), round(percentile(sorted, 95)), round(sorted[sorted.length - 1])]],
    };
    return { table, data: { backlog, servingMs, laterMs, indexedMs, waits } };
  } finally {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
