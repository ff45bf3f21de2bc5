import { randomUUID } from 'node:crypto';
import { query, tx, type AnyUnitRunner, type Unit } from '../storage/unit';

const keptId = query<string>('tenant id', "SELECT value FROM settings WHERE key = 'tenant_id'", { pluck: true });
const keepId = query('tenant id kept', "INSERT INTO settings (key, value) VALUES ('tenant_id', ?) ON CONFLICT (key) DO NOTHING");

/**
 * The vault's tenant id, made on its first start. Replicas starting together on a new database agree: the second's
 * insert waits for the first's and does nothing, and what it reads back is the first's.
 */
function* tenantIdUnit(candidate: string): Unit<string> {
  const kept = yield* tx.get(keptId);
  if (kept !== undefined) return kept;
  yield* tx.run(keepId, [candidate]);
  return (yield* tx.get(keptId))!;
}

export async function tenantIdOf(units: AnyUnitRunner): Promise<string> {
  return await units.run(() => tenantIdUnit(randomUUID()));
}
