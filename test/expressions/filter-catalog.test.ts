import { describe, expect, it } from 'vitest';
import { EXPRESSION_FILTERS, filterSignature, LIQUID_FILTERS, VAULT_FILTERS } from '../../shared/expressions/filters';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { CUSTOM_FILTERS } from '../../electron/engine/expressions/filters';

/** The filters the editor offers are the ones the engine runs: one list, written once (shared/expressions/filters.ts). */
describe('the filter catalog', () => {
  const engine = new ExpressionEngine();

  it('names exactly the vault filters the engine implements', () => {
    expect(VAULT_FILTERS.map((f) => f.name).sort()).toEqual(Object.keys(CUSTOM_FILTERS).sort());
  });

  it('offers only filters the engine parses, written as the catalog shows them', () => {
    for (const filter of EXPRESSION_FILTERS) {
      const body = `{{ tok_123 | ${filterSignature(filter)} }}`;
      expect(() => engine.compileBody(body, 'text'), body).not.toThrow();
      expect(filter.description).toMatch(/\.$/);
    }
    expect(() => engine.compileBody('{{ tok_123 | no_such_filter }}', 'text')).toThrow(/no_such_filter/);
  });

  it('lists each filter once', () => {
    const names = EXPRESSION_FILTERS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(LIQUID_FILTERS.length).toBeGreaterThan(5);
  });
});
