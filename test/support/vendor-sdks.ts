import { BasisTheory } from '@basis-theory/basis-theory-js';
import { BasisTheoryClient } from '@basis-theory/node-sdk';
import type { TestEngine } from './test-engine';

/** The vendor's current Node SDK, unchanged, pointed at the engine by its documented `baseUrl` option. */
export function nodeSdk(t: TestEngine, apiKey: string): BasisTheoryClient {
  return new BasisTheoryClient({ apiKey, baseUrl: t.url, maxRetries: 0 });
}

/**
 * The vendor's legacy JavaScript SDK, unchanged, pointed at the engine by its documented `apiBaseUrl` option. It
 * speaks plain HTTP only to a host named `localhost` (any other name is switched to https), so that is the name used.
 */
export function legacySdk(t: TestEngine, apiKey: string) {
  const url = new URL(t.url);
  url.hostname = 'localhost';
  return new BasisTheory().init(apiKey, { apiBaseUrl: url.origin });
}

/** A private application's key through the node SDK: `rules` as the vendor's access-rules page writes them. */
export async function privateAppKey(management: BasisTheoryClient, name: string, rules: { container: string; transform: string; permissions: string[] }[]) {
  const app = await management.applications.create({
    name,
    type: 'private',
    rules: rules.map((rule, i) => ({ description: `${name} ${i + 1}`, priority: i + 1, ...rule })),
  });
  if (!app.key) throw new Error(`${name}: the create response carries no key`);
  return app.key;
}
