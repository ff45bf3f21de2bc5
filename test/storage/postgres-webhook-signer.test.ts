import { constants, randomBytes, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Sealer } from '../../electron/engine/storage/crypto';
import { WebhookSigner } from '../../electron/engine/webhooks/webhook-signer';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const both = bothDatabases('webhook_signer');
const sealer = new Sealer(randomBytes(32));

describePostgres('the webhook signing key on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    it('is made once however many replicas first need it at the same time, and signs what its public half verifies', async () => {
      const signers = [new WebhookSigner(both.runners[side], sealer), new WebhookSigner(both.runner(side), sealer), new WebhookSigner(both.runner(side), sealer)];
      const [first, ...others] = await Promise.all(signers.map((signer) => signer.publicKeyPem()));
      expect(first).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      expect(others).toEqual([first, first]);
      // Each replica signs with the kept key, which a receiver checks with the one public key.
      for (const signer of signers) {
        const signature = Buffer.from(await signer.sign('{"a":1}'), 'base64');
        expect(verify('sha256', Buffer.from('{"a":1}'), { key: first, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, signature)).toBe(true);
      }
      // A start later reads the same key.
      expect(await new WebhookSigner(both.runner(side), sealer).publicKeyPem()).toBe(first);
    });
  });
});
