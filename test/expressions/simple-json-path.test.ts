import fc from 'fast-check';
import { expect, it } from 'vitest';
import { jsonPathValue } from '../../electron/engine/expressions/filters';
import { simplePathNames } from '../../electron/engine/expressions/simple-json-path';

const name = fc.constantFrom('a', 'b', 'number', 'length', 'constructor', '__proto__', 'hasOwnProperty', 'x_1');

it('reads $.a.b paths exactly as jsonpath-plus does, for any JSON document', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.jsonValue(), fc.dictionary(name, fc.oneof(fc.jsonValue(), fc.dictionary(name, fc.jsonValue())))),
      fc.array(name, { minLength: 1, maxLength: 3 }),
      (document, names) => {
        const path = `$.${names.join('.')}`;
        expect(simplePathNames(path)).toEqual(names);
        // Without names the filter goes through jsonpath-plus: the shortcut must agree with it.
        expect(jsonPathValue(document, path, simplePathNames(path))).toEqual(jsonPathValue(document, path, undefined));
      },
    ),
    { numRuns: 2000, seed: 42 },
  );
});

it('leaves any other JSONPath to jsonpath-plus', () => {
  for (const path of ['$', '$..a', '$.a[0]', '$["a"]', '$.a.*', '$.a-b', "$.a['b']"]) expect(simplePathNames(path)).toBeUndefined();
});
