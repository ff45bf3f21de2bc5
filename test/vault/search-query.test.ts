import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../electron/engine/server/problem';
import { describeSearchFields, parseSearchQuery, type SearchDialect, type SearchNode } from '../../electron/engine/vault/search-query';

const term = (field: string, value: string): SearchNode =>
  field.startsWith('metadata.')
    ? { kind: 'term', field: 'metadata', key: field.slice('metadata.'.length), value, match: 'exact' }
    : field === 'container'
      ? { kind: 'term', field, value, match: 'prefix' }
      : ({ kind: 'term', field, value, match: 'exact' } as SearchNode);
const and = (...children: SearchNode[]): SearchNode => ({ kind: 'and', children });
const or = (...children: SearchNode[]): SearchNode => ({ kind: 'or', children });
const not = (child: SearchNode): SearchNode => ({ kind: 'not', child });

/** The 400 a query earns, or null when it parses. */
function problemOf(query: string, dialect: SearchDialect = 'service'): ApiProblem | null {
  try {
    parseSearchQuery(query, dialect);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiProblem);
    expect((error as ApiProblem).status).toBe(400);
    return error as ApiProblem;
  }
}

/** The parts of a rejection a client reads. */
function rejection(query: string): { detail?: string; errors?: Record<string, string[]> } {
  const problem = problemOf(query);
  if (!problem) throw new Error(`query was accepted: ${query}`);
  return { detail: problem.detail, errors: problem.errors };
}

describe('terms', () => {
  it.each(['', '   ', '\n\t'])('an empty query %j matches everything', (q) => {
    expect(parseSearchQuery(q)).toBeNull();
  });

  it.each([
    ['id:fe24d4cc-de50-4d8c-8da7-8c7483ba21bf', term('id', 'fe24d4cc-de50-4d8c-8da7-8c7483ba21bf')],
    ['type:social_security_number', term('type', 'social_security_number')],
    ['fingerprint:BzQfn8W5PTjHMZgmJfbTjN', term('fingerprint', 'BzQfn8W5PTjHMZgmJfbTjN')],
    ['data:123-45-6789', term('data', '123-45-6789')],
    ['data:6789', term('data', '6789')],
    ['created_by:fb124bba-f90d-45f0-9a59-5edca27b3b4a', term('created_by', 'fb124bba-f90d-45f0-9a59-5edca27b3b4a')],
    ['modified_by:app-1', term('modified_by', 'app-1')],
    ['metadata.customer_id:cus_12345', term('metadata.customer_id', 'cus_12345')],
    ['metadata.a.b:c', term('metadata.a.b', 'c')],
    ['container:/pci/', term('container', '/pci/')],
    ['container:/PCI/High/', term('container', '/pci/high/')],
    ['container:/', term('container', '/')],
    ['  type:card  ', term('type', 'card')],
    ['id:a:b', term('id', 'a:b')],
    ['data:AND', term('data', 'AND')],
    ['data:NOT', term('data', 'NOT')],
  ])('%s', (query, ast) => {
    expect(parseSearchQuery(query)).toEqual(ast);
  });
});

describe('quoting and escapes', () => {
  it.each([
    ['metadata.customer:"c 1"', term('metadata.customer', 'c 1')],
    ['data:"data containing multiple words"', term('data', 'data containing multiple words')],
    ['data:"say \\"hi\\""', term('data', 'say "hi"')],
    ['data:"back\\\\slash"', term('data', 'back\\slash')],
    ['data:"(a OR b)"', term('data', '(a OR b)')],
    ['data:"*"', term('data', '*')],
    ['data:""', term('data', '')],
    ['data:a\\ b', term('data', 'a b')],
    ['data:\\(x\\)', term('data', '(x)')],
    ['data:\\*', term('data', '*')],
    ['data:what\\?', term('data', 'what?')],
    ['metadata.key\\:with\\ colon:v', term('metadata.key:with colon', 'v')],
    ['metadata."quoted":v', null],
  ])('%s', (query, ast) => {
    if (ast === null) rejection(query);
    else expect(parseSearchQuery(query)).toEqual(ast);
  });
});

describe('operators and precedence', () => {
  const a = term('type', 'card');
  const b = term('metadata.k', 'v');
  const c = term('data', '4242');
  const d = term('id', 'x1');

  it.each([
    ['type:card AND metadata.k:v', and(a, b)],
    ['type:card metadata.k:v', and(a, b)], // adjacent terms are ANDed
    ['type:card OR metadata.k:v', or(a, b)],
    ['type:card OR metadata.k:v AND data:4242', or(a, and(b, c))],
    ['type:card AND metadata.k:v OR data:4242', or(and(a, b), c)],
    ['type:card metadata.k:v OR data:4242 id:x1', or(and(a, b), and(c, d))],
    ['(type:card OR metadata.k:v) AND data:4242', and(or(a, b), c)],
    ['(type:card OR metadata.k:v) data:4242', and(or(a, b), c)],
    ['type:card AND metadata.k:v AND data:4242', and(a, b, c)],
    ['type:card AND (metadata.k:v AND data:4242)', and(a, b, c)],
    ['type:card OR (metadata.k:v OR data:4242) OR id:x1', or(a, b, c, d)],
    ['NOT type:card', not(a)],
    ['NOT type:card AND metadata.k:v', and(not(a), b)],
    ['NOT (type:card OR metadata.k:v)', not(or(a, b))],
    ['NOT(type:card)', not(a)],
    ['NOT NOT type:card', not(not(a))],
    ['type:card NOT metadata.k:v', and(a, not(b))],
    ['type:card AND NOT metadata.k:v', and(a, not(b))],
    ['((type:card))', a],
    ['(type:card OR metadata.k:v)AND(data:4242)', and(or(a, b), c)],
    [
      '(type:social_security_number AND metadata.user_id:1234) OR data:111-11-1111',
      or(and(term('type', 'social_security_number'), term('metadata.user_id', '1234')), term('data', '111-11-1111')),
    ],
  ])('%s', (query, ast) => {
    expect(parseSearchQuery(query)).toEqual(ast);
  });
});

describe('dates and ranges', () => {
  it.each([
    [
      'created_at:[2021-01-01 TO 2021-12-31T23:59:59Z]',
      { from: '2021-01-01T00:00:00.000Z', to: '2021-12-31T23:59:59.000Z', fromInclusive: true, toInclusive: true },
    ],
    ['created_at:{* TO 2022-01-01}', { to: '2022-01-01T00:00:00.000Z', fromInclusive: false, toInclusive: false }],
    ['created_at:[2024-01-01 TO *]', { from: '2024-01-01T00:00:00.000Z', fromInclusive: true, toInclusive: true }],
    ['created_at:[2024-01-01 TO 2024-02-01}', { from: '2024-01-01T00:00:00.000Z', to: '2024-02-01T00:00:00.000Z', fromInclusive: true, toInclusive: false }],
    ['created_at:[* TO *]', { fromInclusive: true, toInclusive: true }],
    ['created_at:[ "2024-01-01"   TO   "2024-01-02" ]', { from: '2024-01-01T00:00:00.000Z', to: '2024-01-02T00:00:00.000Z', fromInclusive: true, toInclusive: true }],
    [
      'created_at:[2024-01-01T10:00+02:00 TO 2024-01-01T12:30:15.123456-05:30]',
      { from: '2024-01-01T08:00:00.000Z', to: '2024-01-01T18:00:15.123Z', fromInclusive: true, toInclusive: true },
    ],
    ['created_at:[2024-01-01T10:00 TO *]', { from: '2024-01-01T10:00:00.000Z', fromInclusive: true, toInclusive: true }], // no zone: UTC
    // A date alone is its whole (UTC) day; a date-time alone is that instant.
    ['created_at:2024-02-29', { from: '2024-02-29T00:00:00.000Z', to: '2024-03-01T00:00:00.000Z', fromInclusive: true, toInclusive: false }],
    ['created_at:"2024-02-29T12:00:00Z"', { from: '2024-02-29T12:00:00.000Z', to: '2024-02-29T12:00:00.000Z', fromInclusive: true, toInclusive: true }],
  ])('%s', (query, range) => {
    expect(parseSearchQuery(query)).toEqual({ kind: 'range', field: 'created_at', ...range });
  });

  it('applies to modified_at and expires_at and mixes with terms', () => {
    expect(parseSearchQuery('type:card AND (modified_at:[2024-01-01 TO *] OR NOT expires_at:[* TO *])')).toEqual(
      and(
        term('type', 'card'),
        or(
          { kind: 'range', field: 'modified_at', from: '2024-01-01T00:00:00.000Z', fromInclusive: true, toInclusive: true },
          not({ kind: 'range', field: 'expires_at', fromInclusive: true, toInclusive: true }),
        ),
      ),
    );
  });
});

describe('errors point at the problem', () => {
  const dateHelp = 'takes an ISO 8601 date or date-time, e.g. 2024-01-31 or 2024-01-31T12:00:00Z';
  it.each([
    ['type:card)', 'unexpected ")" at column 10'],
    [')', 'unexpected ")" at column 1'],
    ['(type:card', 'missing ")" for the "(" at column 1'],
    ['type:card AND (data:1 OR (id:2)', 'missing ")" for the "(" at column 15'],
    ['()', 'unexpected ")" at column 2'],
    ['type:card AND', 'the query ends where a field:value term was expected (column 14)'],
    ['NOT', 'the query ends where a field:value term was expected (column 4)'],
    ['AND type:card', 'AND at column 1 where a field:value term was expected'],
    ['type:card OR OR data:1', 'OR at column 14 where a field:value term was expected'],
    ['type:card and data:1', 'expected field:value at column 11; operators are upper-case (AND, OR, NOT)'],
    ['4242424242424242', 'expected field:value at column 1'],
    ['type:card "quoted"', 'expected field:value at column 11'],
    ['colour:red', 'unknown field at column 1; fields are id, type, container, fingerprint, data, metadata.<key>, created_by, modified_by, created_at, modified_at, expires_at'],
    ['type:card Data:x', 'unknown field at column 11; fields are id, type, container, fingerprint, data, metadata.<key>, created_by, modified_by, created_at, modified_at, expires_at'],
    ['metadata:x', 'metadata at column 1 needs a key: metadata.<key>:value'],
    ['metadata.:x', 'metadata at column 1 needs a key: metadata.<key>:value'],
    ['type:', 'missing value after ":" at column 6'],
    ['type: card', 'missing value after ":" at column 6'],
    ['data:"4242 4242', 'unterminated quoted value starting at column 6'],
    ['data:4242\\', '"\\" at column 10 escapes nothing'],
    ['data:42*', 'wildcards are not supported (column 8); write \\* or quote the value to search for "*" itself'],
    ['id:ab?', 'wildcards are not supported (column 6); write \\? or quote the value to search for "?" itself'],
    ['id:[a TO b]', 'ranges (column 4) work only on created_at, modified_at and expires_at'],
    ['container:pci', 'A container must start and end with "/" (column 11)'],
    ['container:/pci//', 'A container is made of non-empty segments of letters, digits, "-" and "_", each followed by "/" (column 11)'],
    ['created_at:yesterday', `created_at at column 12 ${dateHelp}`],
    ['created_at:2021-02-30', `created_at at column 12 ${dateHelp}`],
    ['created_at:2021-01-01T24:00:00Z', `created_at at column 12 ${dateHelp}`],
    ['created_at:[2021-13-01 TO *]', `created_at at column 13 ${dateHelp}`],
    ['expires_at:[* TO 2021-01-01T00:00:00+25:00]', `expires_at at column 18 ${dateHelp}`],
    ['created_at:[2021-01-01 2022-01-01]', 'expected TO at column 24'],
    ['created_at:[2021-01-01 to 2022-01-01]', 'expected TO at column 24'],
    ['created_at:[2021-01-01 TO 2022-01-01', 'missing "]" or "}" for the range opened at column 12'],
    ['created_at:[2021-01-01 TO "*"]', `created_at at column 27 ${dateHelp}`],
    ['created_at:*', 'wildcards are not supported (column 12); write \\* or quote the value to search for "*" itself'],
    [`${'('.repeat(33)}type:card${')'.repeat(33)}`, 'more than 32 levels of nesting at column 33'],
    [`${'NOT '.repeat(40)}type:card`, 'more than 32 levels of nesting at column 129'],
  ])('%s → %s', (query, message) => {
    expect(rejection(query)).toEqual({ detail: `Invalid search query: ${message}`, errors: { query: [message] } });
  });

  it('accepts nesting up to the limit', () => {
    expect(parseSearchQuery(`${'('.repeat(32)}type:card${')'.repeat(32)}`)).toEqual(term('type', 'card'));
  });

  it('never repeats a query value in its error, whatever the query, in either dialect', () => {
    const secret = '4111111111111111';
    const noise = fc.string({ unit: fc.constantFrom(...'()": \\*?[]{}AND OR NOT TO type:data:metadata.x:created_at:/a/card.number:card.bin:'.split('')) });
    fc.assert(
      fc.property(noise, noise, fc.constantFrom<SearchDialect>('service', 'workbench'), (before, after, dialect) => {
        const problem = problemOf(`${before}${secret}${after}`, dialect);
        if (problem) expect(JSON.stringify(problem.toBody())).not.toContain(secret);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('round trip', () => {
  /** Writes an AST back as a query, quoting every value, so parsing it must give the same AST. */
  function print(node: SearchNode): string {
    const quote = (s: string) => `"${s.replace(/[\\"]/g, '\\$&')}"`;
    switch (node.kind) {
      case 'and':
      case 'or':
        return node.children.map((c) => `(${print(c)})`).join(` ${node.kind.toUpperCase()} `);
      case 'not':
        return `NOT (${print(node.child)})`;
      case 'term':
        return node.field === 'metadata'
          ? `metadata.${node.key.replace(/[\s:()"\\]/g, '\\$&')}:${quote(node.value)}`
          : `${node.field}:${quote(node.value)}`;
      case 'range':
        return `created_at:${node.fromInclusive ? '[' : '{'}${node.from ?? '*'} TO ${node.to ?? '*'}${node.toInclusive ? ']' : '}'}`;
      case 'text':
        return quote(node.value);
    }
  }

  const iso = fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  const leaf: fc.Arbitrary<SearchNode> = fc.oneof(
    fc.record({ kind: fc.constant('term' as const), field: fc.constantFrom('id' as const, 'type' as const, 'data' as const, 'fingerprint' as const), value: fc.string(), match: fc.constant('exact' as const) }),
    fc.record({ kind: fc.constant('term' as const), field: fc.constant('metadata' as const), key: fc.string({ minLength: 1 }), value: fc.string(), match: fc.constant('exact' as const) }),
    fc.record(
      { kind: fc.constant('range' as const), field: fc.constant('created_at' as const), from: iso, to: iso, fromInclusive: fc.boolean(), toInclusive: fc.boolean() },
      { requiredKeys: ['kind', 'field', 'fromInclusive', 'toInclusive'] },
    ),
  );
  /** The Tokens page's own: words typed alone, and card fields with values as they are indexed. */
  const workbenchLeaf: fc.Arbitrary<SearchNode> = fc.oneof(
    leaf,
    fc.record({ kind: fc.constant('text' as const), value: fc.string() }),
    fc.record({ kind: fc.constant('term' as const), field: fc.constant('card.last4' as const), value: fc.stringMatching(/^\d{4}$/), match: fc.constant('exact' as const) }),
    fc.record({ kind: fc.constant('term' as const), field: fc.constant('card.brand' as const), value: fc.constantFrom('visa', 'american-express'), match: fc.constant('exact' as const) }),
  );
  const treeOf = (leaves: fc.Arbitrary<SearchNode>) => fc.letrec<{ node: SearchNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaves,
      fc.record({ kind: fc.constant('not' as const), child: tie('node') }),
      fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), children: fc.array(tie('node'), { minLength: 2, maxLength: 3 }) }),
    ),
  })).node;

  /** What the parser makes of a tree: nested and/or of the same kind flatten into one. */
  function flattened(node: SearchNode): SearchNode {
    if (node.kind === 'not') return { kind: 'not', child: flattened(node.child) };
    if (node.kind !== 'and' && node.kind !== 'or') return node;
    const children = node.children.map(flattened).flatMap((c) => (c.kind === node.kind ? c.children : [c]));
    return { kind: node.kind, children };
  }

  it('parses every printed AST back to itself', () => {
    fc.assert(
      fc.property(treeOf(leaf), (ast) => {
        expect(parseSearchQuery(print(ast))).toEqual(flattened(ast));
      }),
      { numRuns: 500 },
    );
  });

  it('parses every printed AST of the workbench dialect back to itself', () => {
    fc.assert(
      fc.property(treeOf(workbenchLeaf), (ast) => {
        expect(parseSearchQuery(print(ast), 'workbench')).toEqual(flattened(ast));
      }),
      { numRuns: 500 },
    );
  });
});

describe('describeSearchFields', () => {
  it('lists every field the parser accepts, with its kind of value', () => {
    expect(describeSearchFields().map((f) => `${f.field}:${f.value}`)).toEqual([
      'id:text',
      'type:text',
      'container:container',
      'fingerprint:text',
      'data:text',
      'metadata.<key>:text',
      'created_by:text',
      'modified_by:text',
      'created_at:date',
      'modified_at:date',
      'expires_at:date',
    ]);
  });
});
