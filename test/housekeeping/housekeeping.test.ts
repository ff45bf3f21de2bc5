import { describe, expect, it } from 'vitest';
import { Housekeeping } from '../../electron/engine/housekeeping/housekeeping';

describe('housekeeping in one process (SQLite: no leader)', () => {
  it("runs every job at each tick, one after another, and a job's failure is reported without stopping the others", async () => {
    const ran: string[] = [];
    const failures: string[] = [];
    const housekeeping = new Housekeeping(
      [
        { name: 'slow', run: () => new Promise<void>((resolve) => setTimeout(() => resolve(void ran.push('slow')), 20)) },
        {
          name: 'broken',
          run: () => {
            throw new Error('disk full');
          },
        },
        { name: 'last', run: () => ran.push('last') },
      ],
      { intervalMs: 60_000, leader: null, onError: (job, error) => failures.push(`${job}: ${(error as Error).message}`) },
    );
    await housekeeping.tick();
    await housekeeping.tick();
    expect(ran).toEqual(['slow', 'last', 'slow', 'last']);
    expect(failures).toEqual(['broken: disk full', 'broken: disk full']);
  });
});
