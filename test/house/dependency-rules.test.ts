// Each dependency rule in .dependency-cruiser.cjs must catch the import it forbids: the cruiser runs with the project's
// own configuration over a small tree that breaks exactly that rule, laid out like the project (electron/engine/…,
// renderer/…, shared/…) so the rule's paths apply unchanged.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(import.meta.dirname, 'fixtures', 'depcruise');
const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as IConfiguration;

async function violatedRules(tree: string): Promise<string[]> {
  const baseDir = join(fixtures, tree);
  const { output } = await cruise(readdirSync(baseDir), {
    ...config.options,
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
  });
  const { summary } = output as ICruiseResult;
  return [...new Set(summary.violations.map((violation) => violation.rule.name))];
}

describe('dependency rules', () => {
  // Each fixture folder is named after the one rule its tree breaks.
  const trees = readdirSync(fixtures).sort();

  it('has a violating fixture for every rule', () => {
    expect(trees).toEqual((config.forbidden ?? []).map((rule) => rule.name).sort());
  });

  it.each(trees)('reports %s on a tree that breaks it, and nothing else', async (rule) => {
    expect(await violatedRules(rule)).toEqual([rule]);
  });
});
