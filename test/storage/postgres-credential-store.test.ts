import { describe, expect, it } from 'vitest';
import { CredentialStore } from '../../electron/engine/people/credential-store';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const both = bothDatabases('credential_store');

describePostgres('the workbench credentials on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    // Each call reads the database afresh, so a second store over it stands for another process (the CLI, a replica).
    const store = () => new CredentialStore(both.runners[side]);

    it('creates a credential once by name, signs in with its secret, and revoking it ends its sessions', async () => {
      const { credential, secret } = await store().create('alice');
      await expect(store().create('alice')).rejects.toMatchObject({ status: 409 });
      const bob = await store().create('bob');
      expect((await store().list()).map((c) => c.name)).toEqual(['alice', 'bob']);

      expect(await store().signIn('tbw_not-a-credential')).toBeNull();
      const signed = await store().signIn(` ${secret} `);
      expect(signed?.person).toEqual({ id: credential.id, name: 'alice' });
      expect(await store().personOfSession(signed!.session)).toEqual({ id: credential.id, name: 'alice' });
      expect(await store().personOfSession('not-a-session')).toBeNull();
      expect(await store().personNamed('bob')).toEqual({ id: bob.credential.id, name: 'bob' });
      expect((await store().list()).find((c) => c.name === 'alice')?.last_used_at).not.toBeNull();

      expect(await store().revoke('alice')).toBe(true);
      expect(await store().personOfSession(signed!.session)).toBeNull();
      expect(await store().personNamed('alice')).toBeNull();
      expect(await store().revoke('alice')).toBe(false);
      expect((await store().list()).map((c) => c.name)).toEqual(['bob']);
    });

    it('one name created on several replicas at once: one credential, the others a 409', async () => {
      for (let round = 0; round < 10; round++) {
        const racers = Array.from({ length: 4 }, () => new CredentialStore(both.runner(side)).create(`raced-${round}`));
        const ended = (await Promise.allSettled(racers)).map((result) => (result.status === 'fulfilled' ? 'ok' : (result.reason as { status?: number }).status));
        expect(ended.sort()).toEqual([409, 409, 409, 'ok']);
      }
    });
  });
});
