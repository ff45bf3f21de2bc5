import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Environments } from '../../electron/engine/environments/environments';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const both = bothDatabases('environments');

describePostgres('the active environment on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    /** A collections folder holding the environments `names`. */
    const folderWith = (name: string, ...names: string[]) => {
      const folder = join(both.dir, side, name);
      mkdirSync(folder, { recursive: true });
      const environments = new Environments(both.runners[side], () => folder);
      for (const environment of names) environments.store.write(environment, [{ name: 'host', value: `${environment}.example`, secret: null }], false);
      return folder;
    };
    /** The environments of `folder` as a (re)start reads them, over a runner of its own (another replica's). */
    const started = async (folder: string) => {
      const environments = new Environments(both.runner(side), () => folder);
      await environments.load();
      return environments;
    };

    it('keeps the choice of each folder for the next start, and forgets it when cleared', async () => {
      const folder = folderWith('kept', 'dev', 'prod');
      const environments = await started(folder);
      expect(environments.active()).toBeNull();
      await environments.choose('dev');
      expect(environments.active()).toBe('dev');
      expect(environments.variables().variables.get('host')?.value).toBe('dev.example');
      expect((await started(folder)).active()).toBe('dev');
      await environments.choose(null);
      expect((await started(folder)).active()).toBeNull();
    });

    it('refuses an environment the folder does not hold, and keeps the choice it had', async () => {
      const folder = folderWith('refused', 'dev');
      const environments = await started(folder);
      await environments.choose('dev');
      await expect(environments.choose('staging')).rejects.toMatchObject({ status: 404 });
      expect((await started(folder)).active()).toBe('dev');
    });

    it('keeps both of two choices made at once for two folders by two replicas', async () => {
      const [one, two] = [folderWith('one', 'a'), folderWith('two', 'b')];
      const [first, second] = await Promise.all([started(one), started(two)]);
      await Promise.all([first.choose('a'), second.choose('b')]);
      expect((await started(one)).active()).toBe('a');
      expect((await started(two)).active()).toBe('b');
    });
  });
});
