import { describe, expect, it } from 'vitest';
import { headerChanges, lineDiff } from '../../renderer/src/components/trace-diff';

/** What the pipeline trace shows a step changed: line by line, JSON one member a line. */
describe('the trace diff', () => {
  it('shows a member a step added as one added line, the member before it unchanged though it gained a comma', () => {
    const changed = lineDiff('{"amount":1200,"number":"XXXX4242"}', '{"amount":1200,"number":"XXXX4242","merchant":"acme"}').filter((line) => line.kind !== 'same');
    expect(changed).toEqual([{ kind: 'added', text: '  "merchant": "acme"' }]);
  });

  it('shows a replaced value as the old line removed and the new one added; text that is no JSON line by line', () => {
    expect(lineDiff('{"n":"{{ t }}"}', '{"n":"XXXX4242"}').filter((line) => line.kind !== 'same')).toEqual([
      { kind: 'removed', text: '  "n": "{{ t }}"' },
      { kind: 'added', text: '  "n": "XXXX4242"' },
    ]);
    expect(lineDiff('a\nb', 'a\nc')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'c' },
    ]);
  });

  it('names headers added, removed and changed, in any case', () => {
    expect(headerChanges([['X-A', '1'], ['x-b', '2']], [['x-a', '1'], ['X-C', '3'], ['X-B', '4']])).toEqual([
      { kind: 'added', name: 'X-C', before: null, after: '3' },
      { kind: 'changed', name: 'X-B', before: '2', after: '4' },
    ]);
  });
});
