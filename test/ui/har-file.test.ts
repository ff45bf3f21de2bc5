import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { HarPage } from '../../shared/workbench/history-contract';
import { HarFile } from '../../renderer/src/pages/history/har-file';

/**
 * The HAR file the History page saves from an export's pages: the same text as the whole document written at once
 * (`JSON.stringify(har, null, 2)`, what the page saved before exports came in pages), its entries oldest first.
 */
const creator = { name: 'Tokenbench', version: '0.1.0' };
const json = fc.jsonValue({ maxDepth: 3 });
const entry = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 4 });

it('is the whole document as one JSON.stringify writes it, whatever the pages', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(entry, { maxLength: 4 }), { minLength: 1, maxLength: 5 }), async (pagesOldestFirst) => {
      const file = new HarFile();
      // The engine answers the newest page first; each page lists its own entries oldest first.
      for (const [i, entries] of [...pagesOldestFirst].reverse().entries()) {
        const page: HarPage = { log: { version: '1.2', creator, entries }, next: i === pagesOldestFirst.length - 1 ? null : `id-${i}` };
        file.add(page);
      }
      const whole = { log: { version: '1.2', creator, entries: pagesOldestFirst.flat() } };
      expect(file.entries).toBe(whole.log.entries.length);
      expect(await file.blob('application/json').text()).toBe(JSON.stringify(whole, null, 2));
    }),
    { numRuns: 300, seed: 20261207 },
  );
});

it('is an empty list of entries when the export found no request', async () => {
  const file = new HarFile();
  file.add({ log: { version: '1.2', creator, entries: [] }, next: null });
  expect(JSON.parse(await file.blob('application/json').text())).toEqual({ log: { version: '1.2', creator, entries: [] } });
});
