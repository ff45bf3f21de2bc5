import fc from 'fast-check';
import { compile } from 'json-p3';
import { expect, it } from 'vitest';
import { ExpressionBudget } from '../../electron/engine/expressions/expression-budget';
import { jsonPathValue } from '../../electron/engine/expressions/filters';
import { simplePathNames } from '../../electron/engine/expressions/simple-json-path';

const name = fc.constantFrom('a', 'b', 'number', 'length', 'constructor', '__proto__', 'hasOwnProperty', 'x_1');

it('reads $.a.b paths exactly as json-p3 does, for any JSON document', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.jsonValue(), fc.dictionary(name, fc.oneof(fc.jsonValue(), fc.dictionary(name, fc.jsonValue())))),
      fc.array(name, { minLength: 1, maxLength: 3 }),
      (document, names) => {
        const path = `$.${names.join('.')}`;
        expect(simplePathNames(path)).toEqual(names);
        // Without names the filter goes through json-p3: the shortcut must agree with it.
        const query = compile(path);
        const budget = new ExpressionBudget();
        expect(jsonPathValue(document, query, simplePathNames(path), budget)).toEqual(jsonPathValue(document, query, undefined, budget));
      },
    ),
    { numRuns: 2000, seed: 42 },
  );
});

it('leaves any other JSONPath to json-p3', () => {
  for (const path of ['$', '$..a', '$.a[0]', '$["a"]', '$.a.*', '$.a-b', "$.a['b']"]) expect(simplePathNames(path)).toBeUndefined();
});
