import { describe, expect, it } from 'vitest';
import type { CompatibilityWarning } from '../../electron/engine/proxy/compatibility';
import { resolveDestination } from '../../electron/engine/proxy/destination-url';
import { ApiProblem } from '../../electron/engine/server/problem';

const messagesOf = (warnings: readonly CompatibilityWarning[]) => warnings.map((warning) => warning.message);

describe('resolveDestination', () => {
  it.each([
    ['documented example', 'https://api.example.com/base/', '/proxy/v1/charges?expand=x', 'https://api.example.com/base/v1/charges?expand=x'],
    ['base without trailing slash', 'https://api.example.com/base', '/proxy/v1/charges', 'https://api.example.com/base/v1/charges'],
    ['bare origin, empty path', 'https://api.example.com', '/proxy', 'https://api.example.com/'],
    ['base path, empty path', 'https://api.example.com/base/', '/proxy', 'https://api.example.com/base'],
    ['client trailing slash kept', 'https://api.example.com/base', '/proxy/', 'https://api.example.com/base/'],
    ['query only', 'https://api.example.com/base/', '/proxy?x=1', 'https://api.example.com/base?x=1'],
    ['encoded characters kept as sent', 'https://api.example.com', '/proxy/a%20b/c%2Fd?q=%26%3D&r=%E2%82%AC', 'https://api.example.com/a%20b/c%2Fd?q=%26%3D&r=%E2%82%AC'],
    ['queries merged, URL query first', 'https://api.example.com/v1?key=abc', '/proxy/items?page=2', 'https://api.example.com/v1/items?key=abc&page=2'],
    ['fragment of the proxy URL dropped', 'https://api.example.com/base#frag', '/proxy/x', 'https://api.example.com/base/x'],
    ['port kept', 'http://localhost:8080/', '/proxy/hook', 'http://localhost:8080/hook'],
    ['dot segments resolved below the base path', 'https://api.example.com/base/', '/proxy/a/./b/../c', 'https://api.example.com/base/a/c'],
    ['dot segments down to the base path itself', 'https://api.example.com/base', '/proxy/a/..', 'https://api.example.com/base/'],
    ['a bare origin has nothing to climb out of', 'https://api.example.com', '/proxy/../x', 'https://api.example.com/x'],
  ])('%s', (_name, proxyUrl, target, expected) => {
    expect(resolveDestination(proxyUrl, target, 'BT').href).toBe(expected);
  });

  it.each([
    ['missing', undefined, 'BT-PROXY-URL header is required'],
    ['empty', '  ', 'BT-PROXY-URL header is required'],
    ['relative', '/v1/charges', 'BT-PROXY-URL is not a valid absolute URL'],
    ['ftp scheme', 'ftp://files.example.com/x', 'BT-PROXY-URL must use http or https, not ftp'],
    ['javascript scheme', 'javascript:alert(1)', 'BT-PROXY-URL must use http or https, not javascript'],
    ['user info', 'https://user:secret@api.example.com/', 'BT-PROXY-URL must not contain user info (user:password@)'],
    ['user only', 'https://user@api.example.com/', 'BT-PROXY-URL must not contain user info (user:password@)'],
  ])('refuses a %s proxy URL with 400', (_name, proxyUrl, detail) => {
    const attempt = () => resolveDestination(proxyUrl, '/proxy/x', 'BT');
    expect(attempt).toThrow(ApiProblem);
    expect(attempt).toThrow(expect.objectContaining({ status: 400, detail }));
  });

  it.each(['/proxy/../../x', '/proxy/..', '/proxy/a/../../x', '/proxy/%2e%2e/x', '/proxy/.%2E/x', '/proxy/%2E./x', '/proxy/..\\x', '/proxy/../base2/x'])(
    'refuses %s, whose dot segments climb out of the base path of the proxy URL, with 400',
    (target) => {
      const attempt = () => resolveDestination('https://api.example.com/base/', target, 'BT');
      expect(attempt).toThrow(
        expect.objectContaining({ status: 400, detail: 'The path after /proxy climbs out of the path of BT-PROXY-URL with ".." segments' }),
      );
    },
  );

  it('names the header with the configured prefix', () => {
    expect(() => resolveDestination(undefined, '/proxy', 'TB')).toThrow('TB-PROXY-URL header is required');
  });

  it('never echoes the URL (it may carry secrets) in an error', () => {
    expect(() => resolveDestination('https://user:hunter2@api.example.com/', '/proxy', 'BT')).toThrow(
      expect.objectContaining({ detail: expect.not.stringContaining('hunter2') }),
    );
  });

  it('gives the pool origin and the request-line path apart', () => {
    expect(resolveDestination('https://api.example.com:8443/base/', '/proxy/v1/charges?expand=x', 'BT')).toMatchObject({
      origin: 'https://api.example.com:8443',
      path: '/base/v1/charges?expand=x',
    });
  });

  it('warns that the hosted service cannot reach localhost', () => {
    expect(messagesOf(resolveDestination('https://localhost:9000', '/proxy', 'BT').warnings)).toEqual([
      'destination is localhost; the hosted service cannot reach your machine',
    ]);
  });

  it('has no warnings for an https destination with a DNS name', () => {
    expect(resolveDestination('https://api.example.com', '/proxy/x', 'BT').warnings).toEqual([]);
  });

  it('warns about http and IP-literal hosts, which the hosted service refuses', () => {
    expect(messagesOf(resolveDestination('http://127.0.0.1:9000', '/proxy', 'BT').warnings)).toEqual([
      'destination uses http; the hosted service only proxies to https',
      'destination host 127.0.0.1 is an IP address; the hosted service requires a DNS name',
    ]);
    expect(messagesOf(resolveDestination('https://[::1]:9000', '/proxy', 'BT').warnings)).toEqual([
      'destination host [::1] is an IP address; the hosted service requires a DNS name',
    ]);
  });

  it('warns when an expression sits in the path or query, where it is not detokenized', () => {
    const inQuery = resolveDestination('https://api.example.com', '/proxy/x?card={{ tok_1 }}', 'BT');
    const inPath = resolveDestination('https://api.example.com', '/proxy/%7B%7B%20tok_1%20%7D%7D', 'BT');
    for (const { warnings } of [inQuery, inPath]) {
      expect(messagesOf(warnings)).toEqual(['the destination URL contains a {{ expression; expressions are detokenized only in the body']);
    }
    // Where, so the workbench can point at it: each query parameter by name, or the path.
    expect(inQuery.warnings[0].outside).toEqual([{ part: 'query', name: 'card' }]);
    expect(inPath.warnings[0].outside).toEqual([{ part: 'path' }]);
  });
});
