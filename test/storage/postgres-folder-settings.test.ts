import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CollectionsFolder } from '../../electron/engine/settings/collections-folder';
import { ProxiesFolderSetting } from '../../electron/engine/settings/proxies-folder';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const both = bothDatabases('folder_settings');

describePostgres('the folder settings on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    const collectionsAt = async (pinned: string | null = null) => {
      const setting = new CollectionsFolder(both.runners[side], { pinned, operatorFixed: null, default: join(both.dir, side, 'default'), dataDir: null, log: () => undefined });
      await setting.load();
      return setting;
    };
    const proxiesAt = async (pinned: string | null = null) => {
      const setting = new ProxiesFolderSetting(both.runners[side], pinned);
      await setting.load();
      return setting;
    };

    it('keeps the collections folder Settings chose for the next start, refuses a change under the flag, and goes back to the default', async () => {
      const chosen = join(both.dir, side, 'repository', 'collections');
      expect(await (await collectionsAt()).change(chosen)).toBe(chosen);
      expect((await collectionsAt()).initial()).toBe(chosen);
      await expect((await collectionsAt(join(both.dir, 'flag'))).change(join(both.dir, side, 'other'))).rejects.toMatchObject({ status: 409 });
      expect((await collectionsAt()).state(chosen).stored).toBe(chosen);
      await (await collectionsAt()).change(null);
      expect((await collectionsAt()).initial()).toBe(join(both.dir, side, 'default'));
    });

    it('keeps the proxies folder Settings chose for the next start, and none once cleared', async () => {
      const chosen = join(both.dir, side, 'proxies');
      await (await proxiesAt()).change(chosen);
      expect((await proxiesAt()).initial()).toBe(chosen);
      await expect((await proxiesAt(join(both.dir, 'flag'))).change(null)).rejects.toMatchObject({ status: 409 });
      expect((await proxiesAt()).state()).toEqual({ stored: chosen, pinnedBy: null });
      await (await proxiesAt()).change(null);
      expect((await proxiesAt()).initial()).toBeNull();
    });
  });
});
