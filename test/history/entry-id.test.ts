import { describe, expect, it, vi } from 'vitest';
import { timeOrderedId } from '../../electron/engine/history/entry-id';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('history entry ids', () => {
  it('are UUIDv7s that only grow, also beyond 4,096 in one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, timeOrderedId);
    for (const id of ids) expect(id).toMatch(UUID_V7);
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
  });

  it('carry the time they were made', () => {
    const before = Date.now();
    const id = timeOrderedId();
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    // At most a few ms ahead when the previous test borrowed from the future.
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThan(Date.now() + 50);
  });

  it('differ between threads and processes that make them in the same millisecond', async () => {
    // Each thread (the history worker, a restarted engine, another replica) loads the module afresh.
    const made = new Set<string>();
    for (let i = 0; i < 50; i++) {
      vi.resetModules();
      const { timeOrderedId: another } = await import('../../electron/engine/history/entry-id');
      made.add(another());
    }
    expect(made.size).toBe(50);
  });
});
