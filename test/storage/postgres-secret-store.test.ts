import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretStore } from '../../electron/engine/secrets/secret-store';
import { Sealer } from '../../electron/engine/storage/crypto';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const both = bothDatabases('secret_store');
const sealer = new Sealer(randomBytes(32));

describePostgres('the secret store on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    /** The store as a (re)start reads it, over a runner of its own (another replica's). */
    const started = async () => {
      const secrets = new SecretStore(both.runner(side), sealer);
      await secrets.load();
      return secrets;
    };
    /** Every secret's name and value, as a fresh start reads them. */
    const kept = async () => {
      const secrets = await started();
      return Object.fromEntries(secrets.list().map(({ name }) => [name, secrets.value(name)]));
    };

    it('sets, replaces, lists in name order and deletes secrets, each start reading what the others wrote', async () => {
      const secrets = await started();
      const made = await secrets.set('stripe', 'sk_live_1');
      await secrets.set('adyen', 'ak_1');
      const replaced = await secrets.set('stripe', 'sk_live_2');
      expect(replaced.created_at).toBe(made.created_at);
      expect(secrets.value('stripe')).toBe('sk_live_2');
      expect(await kept()).toEqual({ adyen: 'ak_1', stripe: 'sk_live_2' });
      expect((await started()).list().map(({ name }) => name)).toEqual(['adyen', 'stripe']);
      expect(await secrets.delete('adyen')).toBe(true);
      expect(await secrets.delete('adyen')).toBe(false);
      expect(await kept()).toEqual({ stripe: 'sk_live_2' });
      expect(() => secrets.reveal('adyen')).toThrow('No secret is named “adyen”');
    });

    it('keeps the secrets a change set once its file is written, and puts them back when the write fails', async () => {
      const secrets = await started();
      await secrets.set('token', 'old');
      const before = await kept();
      const failed = secrets.atomically(
        (staged) => {
          staged.set('token', 'new');
          staged.set('fresh', 'value');
          // What the change sets it sees already, under the names it chose.
          expect(staged.has('fresh')).toBe(true);
          expect(staged.namesByValue().get('value')).toBe('fresh');
          return 'file text';
        },
        () => {
          throw new Error('disk full');
        },
      );
      await expect(failed).rejects.toThrow('disk full');
      expect(await kept()).toEqual(before);
      expect(secrets.value('token')).toBe('old');
      expect(secrets.has('fresh')).toBe(false);

      const written = await secrets.atomically(
        (staged) => {
          staged.set('fresh', 'value');
          return 'file text';
        },
        (text) => `${text} written`,
      );
      expect(written).toBe('file text written');
      expect(await kept()).toEqual({ ...before, fresh: 'value' });
    });

    it('writes no file when the secrets cannot be kept', async () => {
      const secrets = await started();
      let wrote = false;
      await both.exec(side, 'ALTER TABLE secrets RENAME TO secrets_aside');
      try {
        const failed = secrets.atomically(
          (staged) => staged.set('lost', 'value'),
          () => {
            wrote = true;
          },
        );
        await expect(failed).rejects.toThrow();
      } finally {
        await both.exec(side, 'ALTER TABLE secrets_aside RENAME TO secrets');
      }
      expect(wrote).toBe(false);
      expect(secrets.has('lost')).toBe(false);
    });
  });
});
