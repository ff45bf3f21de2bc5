import { describe, expect, it } from 'vitest';
import { clientResponseHeaders, destinationStatusHeader } from '../../electron/engine/proxy/response-headers';

describe('clientResponseHeaders', () => {
  it('passes end-to-end headers unchanged (duplicates and casing), drops hop-by-hop, adds the destination status', () => {
    const raw = [
      'Content-Type', 'application/json',
      'Set-Cookie', 'a=1; Path=/',
      'Connection', 'keep-alive, X-Internal',
      'X-Internal', 'hop',
      'Keep-Alive', 'timeout=5',
      'Transfer-Encoding', 'chunked',
      'Proxy-Authenticate', 'Basic',
      'set-cookie', 'b=2',
      'X-Request-Id', 'r1',
    ];
    expect(clientResponseHeaders('BT')(raw, 201, 'trace-1')).toEqual([
      'Content-Type', 'application/json',
      'Set-Cookie', 'a=1; Path=/',
      'set-cookie', 'b=2',
      'X-Request-Id', 'r1',
      'BT-PROXY-DESTINATION-STATUS', '201',
      'BT-TRACE-ID', 'trace-1',
    ]);
  });

  it('does not let a destination forge the destination-status header or add a trace id of its own', () => {
    const headers = clientResponseHeaders('BT')(['bt-proxy-destination-status', '200', 'Content-Length', '0', 'Bt-Trace-Id', 'theirs'], 500, 'mine');
    expect(headers).toEqual(['Content-Length', '0', 'BT-PROXY-DESTINATION-STATUS', '500', 'BT-TRACE-ID', 'mine']);
  });

  it('uses the prefix setting', () => {
    expect(destinationStatusHeader('TB')).toBe('TB-PROXY-DESTINATION-STATUS');
    expect(clientResponseHeaders('TB')(['BT-PROXY-DESTINATION-STATUS', '1', 'BT-TRACE-ID', 'x'], 204, 't')).toEqual([
      'BT-PROXY-DESTINATION-STATUS', '1',
      'BT-TRACE-ID', 'x',
      'TB-PROXY-DESTINATION-STATUS', '204',
      'TB-TRACE-ID', 't',
    ]);
  });
});
