import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { encryptSnippet } from '../../shared/snippets/encrypt-snippet';
import { engineForEachTest, PAN, workbenchReply } from './support/workbench-engine';

/** The encrypt how-to Settings shows, run as a user would copy it (Node, jose), against a real engine. */
const current = engineForEachTest();
const run = promisify(execFile);

it('encrypts a card with the key Settings made and creates a token from the JWE', async () => {
  const t = current.bench;
  const { key, public_key_pem } = await workbenchReply(t, 'createClientKey', {});
  const code = encryptSnippet({ url: t.url, headerPrefix: 'BT', key: { key_id: key.key_id, public_key_pem } });
  // Evaluated from the project's folder, so `jose` resolves as it would in the user's.
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, BT_API_KEY: t.privateKey, CARD_NUMBER: PAN } });
  expect(stdout).toMatch(/^201 /);
  const { id } = JSON.parse(stdout.slice(4)) as { id: string };
  const token = await t.call('GET', `/tokens/${id}`, { key: t.privateKey });
  expect(token.body).toMatchObject({ type: 'card', data: { number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 } });
  expect(JSON.stringify(await workbenchReply(t, 'revealToken', { application_id: current.backend, token_id: id }))).toContain(PAN);
});
