import { describe, expect, it } from 'vitest';
import { resolveConfig, type EngineConfig } from '../../electron/engine/engine-config';
import { AdjustableSettings, PROXY_LIMITS } from '../../electron/engine/settings/adjustable-settings';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const both = bothDatabases('adjustable_settings');

describePostgres('the adjustable settings on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    /** The proxy's limits as a start reads them into its config, with `given` as the flags it was started with. */
    const started = async (given: Partial<EngineConfig> = {}) => {
      const config = resolveConfig();
      const limits = new AdjustableSettings(both.runners[side], 'adjustable_limits', PROXY_LIMITS, config, given);
      await limits.load();
      return { config, limits };
    };

    it('saves a change that applies at once and at the next start, refuses a pinned one whole, and goes back to the default', async () => {
      const { config, limits } = await started();
      const defaults = resolveConfig();
      const state = await limits.change({ maxExpressions: 7, proxyTimeoutMs: 1234 });
      expect(state.maxExpressions).toMatchObject({ value: 7, stored: 7, pinnedBy: null });
      expect(config).toMatchObject({ maxExpressions: 7, proxyTimeoutMs: 1234 });
      expect((await started()).config).toMatchObject({ maxExpressions: 7, proxyTimeoutMs: 1234 });

      const pinned = await started({ maxExpressions: 3 });
      expect(pinned.config.maxExpressions).toBe(3);
      await expect(pinned.limits.change({ maxExpressions: 9, proxyTimeoutMs: 99 })).rejects.toMatchObject({ status: 409 });
      expect((await started()).config).toMatchObject({ maxExpressions: 7, proxyTimeoutMs: 1234 });

      await limits.change({ maxExpressions: null });
      expect((await started()).config).toMatchObject({ maxExpressions: defaults.maxExpressions, proxyTimeoutMs: 1234 });
    });
  });
});
