import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workbenchReply } from './support/workbench-engine';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * A Postman collection (v2.1) and its environment import as saved requests and an environment: variables become
 * `${env:…}` references, credentials and secret values go to Secrets (never into the folder), and what has no
 * equivalent here is listed. An address the Composer would never send to is refused, and nothing is written.
 */

const BEARER = 'sk_live_51HqPostmanBearer0042';
const SECRET_VALUE = 'sk_live_51HqPostmanEnvSecret0042';
const V21 = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

let t: TestEngine;
beforeEach(async () => {
  t = await startTestEngine({ workbenchRoutes: true });
});
afterEach(() => t.stop());

const call = (name: string, request: unknown = {}) => workbenchReply(t, name, request);

/** Every file of the collections folder, as text. */
function folderText(dir = t.engine.collectionsFolder): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((entry) => (entry.isDirectory() ? folderText(join(dir, entry.name)) : readFileSync(join(dir, entry.name), 'utf8')))
    .join('\n');
}

const collectionWith = (url: string) =>
  JSON.stringify({
    info: { name: 'Shop', schema: V21 },
    item: [
      {
        name: 'Cards',
        item: [
          {
            name: 'Charge',
            event: [{ listen: 'prerequest', script: { exec: ['pm.environment.set("ts", Date.now())'] } }],
            request: {
              method: 'POST',
              url,
              header: [
                { key: 'Authorization', value: `Bearer ${BEARER}` },
                { key: 'Content-Type', value: 'application/json' },
              ],
              body: { mode: 'raw', raw: '{\n  "amount": {{amount}},\n  "card": "{{card_token}}"\n}', options: { raw: { language: 'json' } } },
            },
          },
          { name: 'Signed', request: { method: 'GET', url: '{{base_url}}/v1/signed', auth: { type: 'awsv4', awsv4: [] } } },
        ],
      },
    ],
  });

const ENVIRONMENT = JSON.stringify({
  name: 'Staging',
  values: [
    { key: 'base_url', value: 'https://api.example.com', enabled: true },
    { key: 'amount', value: '1200', enabled: true },
    { key: 'card_token', value: 'tok_from_the_seed', enabled: true },
    { key: 'api_secret', value: SECRET_VALUE, type: 'secret', enabled: true },
  ],
});

describe('importing from Postman', () => {
  it('makes a collection and an environment, its credentials and secret values in Secrets only, and lists what could not come', async () => {
    const imported = await call('importPostman', { collection: collectionWith('{{base_url}}/v1/charges'), environment: ENVIRONMENT });
    expect(imported.collections).toEqual([{ name: 'Shop - Cards', requests: ['Charge', 'Signed'] }]);
    expect(imported.environment).toMatchObject({ name: 'Staging', variables: 4, secrets: [expect.any(String)] });
    expect(imported.moved_aside).toEqual([{ collection: 'Shop - Cards', request: 'Charge', header: 'Authorization', secret: expect.any(String) }]);
    expect(imported.not_carried).toEqual(
      expect.arrayContaining([expect.stringContaining('pre-request script'), expect.stringContaining('awsv4 auth')]),
    );

    const charge = imported.view.collections.find((c: { name: string }) => c.name === 'Shop - Cards').requests.find((r: { name: string }) => r.name === 'Charge');
    expect(charge.request).toMatchObject({ target: '${env:base_url}/v1/charges', bodyMode: 'json', body: '{\n  "amount": ${env:amount},\n  "card": "${env:card_token}"\n}' });
    expect(charge.request.headers).toContainEqual({ name: 'Authorization', value: `Bearer \${secret:${imported.moved_aside[0].secret}}`, enabled: true });

    const environment = (await call('listEnvironments')).environments.find((e: { name: string }) => e.name === 'Staging');
    expect(environment.variables).toContainEqual({ name: 'api_secret', value: null, secret: imported.environment.secrets[0], secret_set: true });
    const text = folderText();
    expect(text).not.toContain(BEARER);
    expect(text).not.toContain(SECRET_VALUE);
    expect((await call('listSecrets')).map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining([imported.moved_aside[0].secret, imported.environment.secrets[0]]));
  });

  it.each(['file:///etc/passwd', 'gopher://127.0.0.1:70/_stats', 'javascript:alert(document.domain)', 'data:text/html,<script>alert(1)</script>'])(
    'refuses a request to %s with a 400 naming it, and writes nothing',
    async (url) => {
      const refused = await call('importPostman', { collection: collectionWith(url), environment: ENVIRONMENT }).catch((error) => error);
      expect(refused).toMatchObject({ status: 400, detail: expect.stringMatching(/“Charge” \(Shop - Cards\).*http and https/) });
      expect((await call('listCollections')).collections).toEqual([]);
      expect((await call('listEnvironments')).environments).toEqual([]);
      expect(await call('listSecrets')).toEqual([]);
    },
  );
});
