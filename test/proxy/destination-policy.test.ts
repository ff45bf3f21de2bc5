import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { LookupAddress } from 'node:dns';
import os from 'node:os';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoServer, type EchoServer } from '../../electron/engine/echo/echo-server';
import {
  createPolicyConnector,
  DestinationRefusedError,
  embeddedIPv4,
  normalizeAddress,
  refusalReason,
  type DestinationPolicy,
} from '../../electron/engine/proxy/destination-policy';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { createForwarder, ForwardError, type ForwarderOptions } from '../../electron/engine/proxy/forwarder';
import { startServer, type TestServer } from './support/loopback';
import { forwardAll, getRequest, rejectionOf } from './support/forwarding';

const open: DestinationPolicy = { denyPrivateDestinations: false, ownPorts: () => [] };
const strict: DestinationPolicy = { denyPrivateDestinations: true, ownPorts: () => [] };

/** Counts sockets opened through `net.connect` while `work` runs. */
async function socketsOpenedDuring(work: () => Promise<unknown>): Promise<number> {
  let opened = 0;
  const count = () => opened++;
  subscribe('net.client.socket', count);
  try {
    await work();
  } finally {
    unsubscribe('net.client.socket', count);
  }
  return opened;
}

describe('normalizeAddress', () => {
  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:a9fe:a9fe', '169.254.169.254'],
    ['0:0:0:0:0:ffff:0a00:0001', '10.0.0.1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['FE80::1%eth0', 'fe80::1'],
    ['192.168.0.1', '192.168.0.1'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeAddress(input)).toBe(expected);
  });
});

describe('refusalReason', () => {
  it.each([
    ['169.254.169.254', 'link-local address (cloud metadata services live there)'],
    ['::ffff:169.254.169.254', 'link-local address (cloud metadata services live there)'],
    ['fe80::1', 'link-local address (cloud metadata services live there)'],
    ['0.0.0.0', 'unspecified address'],
    ['::', 'unspecified address'],
    ['224.0.0.1', 'multicast address'],
    ['ff02::1', 'multicast address'],
  ])('always refuses %s, whatever the settings', (address, reason) => {
    expect(refusalReason(address, 80, open)).toBe(reason);
    expect(refusalReason(address, 80, strict)).toBe(reason);
  });

  it.each(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', 'fd00::1'])(
    'allows loopback/private %s by default and refuses it when private destinations are denied',
    (address) => {
      expect(refusalReason(address, 80, open)).toBeUndefined();
      expect(refusalReason(address, 80, strict)).toBe('loopback or private address, and private destinations are denied by the settings');
    },
  );

  it.each(['8.8.8.8', '172.32.0.1', '100.128.0.1', '2001:4860:4860::8888'])('allows public %s even when private destinations are denied', (address) => {
    expect(refusalReason(address, 443, strict)).toBeUndefined();
  });

  it.each([
    ['fd00:ec2::254', 'AWS IMDS over IPv6'],
    ['100.100.100.200', 'Alibaba Cloud metadata'],
    ['168.63.129.16', 'Azure WireServer'],
    ['::a9fe:a9fe', '169.254.169.254 written IPv4-compatible'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254 through NAT64'],
    ['64:ff9b:1::a9fe:a9fe', '169.254.169.254 through local-use NAT64'],
    ['2002:a9fe:a9fe::1', '169.254.169.254 inside a 6to4 address'],
    ['2001:0:4136:e378:8000:63bf:5601:5601', '169.254.169.254 as a Teredo client (bits inverted)'],
    ['[fd00:ec2:0:0:0:0:0:254]', 'AWS IMDS written out in full'],
  ])('always refuses the metadata address %s (%s)', (address) => {
    expect(refusalReason(address, 80, open)).toMatch(/metadata|link-local/);
    expect(refusalReason(address, 80, strict)).toMatch(/metadata|link-local/);
  });

  it.each(['64:ff9b::808:808', '2002:808:808::1'])('allows %s, a public IPv4 address carried in IPv6', (address) => {
    expect(refusalReason(address, 443, strict)).toBeUndefined();
  });

  it.each(['64:ff9b::a00:1', '::a00:1', '2002:c0a8:101::1'])('refuses %s, a private IPv4 address carried in IPv6, when private destinations are denied', (address) => {
    expect(refusalReason(address, 80, open)).toBeUndefined();
    expect(refusalReason(address, 80, strict)).toMatch(/^loopback or private address, and private destinations are denied by the settings \(it carries 10\.|192\.168\./);
  });

  it("refuses this machine's own interface addresses, public ones too, when private destinations are denied", () => {
    const addresses = () => ['203.0.113.7', '2001:db8::7'];
    for (const address of ['203.0.113.7', '2001:db8::7', '[2001:db8:0::7]']) {
      expect(refusalReason(address, 443, { ...open, localAddresses: addresses })).toBeUndefined();
      expect(refusalReason(address, 443, { ...strict, localAddresses: addresses })).toBe(
        'an address of this machine, and private destinations are denied by the settings',
      );
    }
    expect(refusalReason('203.0.113.8', 443, { ...strict, localAddresses: addresses })).toBeUndefined();
  });

  it("refuses Tokenbench's own ports on local addresses only", () => {
    const policy: DestinationPolicy = { denyPrivateDestinations: false, ownPorts: () => [4100, 4101] };
    expect(refusalReason('127.0.0.1', 4100, policy)).toBe("Tokenbench's own port on this machine");
    expect(refusalReason('::1', 4101, policy)).toBe("Tokenbench's own port on this machine");
    expect(refusalReason('127.0.0.1', 4102, policy)).toBeUndefined();
    expect(refusalReason('8.8.8.8', 4100, policy)).toBeUndefined();
    const lanAddress = Object.values(os.networkInterfaces()).flat().find((nic) => nic && !nic.internal)?.address;
    if (lanAddress !== undefined) expect(refusalReason(lanAddress, 4100, policy)).toBe("Tokenbench's own port on this machine");
  });
});

/** An IPv6 address written from its sixteen bytes, in full (normalizeAddress shortens it). */
const ipv6Of = (bytes: readonly number[]) =>
  Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16)).join(':');

/** RFC 6052: the IPv4 address's four bytes after a prefix of `length` bits, skipping bits 64 to 71 (the u octet). */
function rfc6052(prefix: readonly number[], length: 32 | 40 | 48 | 56 | 64 | 96, ipv4: readonly number[], suffix: readonly number[]): string {
  const bytes = [...prefix.slice(0, length / 8)];
  for (const byte of ipv4) {
    if (bytes.length === 8) bytes.push(0);
    bytes.push(byte);
  }
  if (bytes.length === 8) bytes.push(0);
  return ipv6Of([...bytes, ...suffix.slice(bytes.length)]);
}

const LOCAL_USE_NAT64 = [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01];

/** Every standard way of writing `ipv4` inside an IPv6 address; `noise` fills the bits each way leaves free. */
function embeddings(ipv4: readonly number[], noise: readonly number[]): Array<{ form: string; address: string; onlyReading: boolean }> {
  const [a, b, c, d] = ipv4;
  const forms = [
    { form: 'IPv4-mapped', address: ipv6Of([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d]), onlyReading: true },
    { form: 'SIIT', address: ipv6Of([0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, a, b, c, d]), onlyReading: true },
    { form: 'NAT64', address: ipv6Of([0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, a, b, c, d]), onlyReading: true },
    { form: '6to4', address: ipv6Of([0x20, 0x02, a, b, c, d, ...noise.slice(6)]), onlyReading: true },
    { form: 'Teredo', address: ipv6Of([0x20, 0x01, 0, 0, ...noise.slice(4, 12), a ^ 0xff, b ^ 0xff, c ^ 0xff, d ^ 0xff]), onlyReading: true },
    // The prefix length a network uses inside 64:ff9b:1::/48 is not in the address: each is read.
    ...([48, 56, 64, 96] as const).map((length) => ({
      form: `local-use NAT64 /${length}`,
      address: rfc6052([...LOCAL_USE_NAT64, ...noise.slice(6)], length, ipv4, noise),
      onlyReading: false,
    })),
  ];
  // :: and ::1 are not IPv4-compatible addresses.
  if (a !== 0 || b !== 0 || c !== 0 || d > 1) forms.push({ form: 'IPv4-compatible', address: ipv6Of([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, a, b, c, d]), onlyReading: true });
  return forms;
}

describe('embeddedIPv4', () => {
  it.each([
    ['::ffff:a9fe:a9fe', ['169.254.169.254'], 'IPv4-mapped'],
    ['::ffff:0:a9fe:a9fe', ['169.254.169.254'], 'SIIT'],
    ['::c000:202', ['192.0.2.2'], 'IPv4-compatible'],
    ['::2', ['0.0.0.2'], 'IPv4-compatible'],
    ['64:ff9b::c000:202', ['192.0.2.2'], 'NAT64'],
    ['2002:c000:202::1', ['192.0.2.2'], '6to4'],
    // RFC 4380's example: the client 192.0.2.45 behind the server 65.54.227.120.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', ['192.0.2.45'], 'Teredo'],
    ['::', [], 'unspecified, not IPv4-compatible'],
    ['::1', [], 'loopback, not IPv4-compatible'],
    ['2001:4860:4860::8888', [], 'none'],
  ])('%s carries %j (%s)', (address, ipv4) => {
    expect(embeddedIPv4(address)).toEqual(ipv4);
  });

  it('reads 64:ff9b:1::/48 in each layout of RFC 6052 a network may use there', () => {
    const metadata = [169, 254, 169, 254];
    for (const length of [48, 56, 64, 96] as const) {
      const address = rfc6052(LOCAL_USE_NAT64, length, metadata, []);
      expect(embeddedIPv4(normalizeAddress(address)), `/${length}: ${address}`).toContain('169.254.169.254');
    }
    // The address, in the /64 layout.
    expect(embeddedIPv4(normalizeAddress('64:ff9b:1:0:a9:fea9:fe00:0'))).toContain('169.254.169.254');
  });
});

describe('refusalReason, for an IPv4 address carried in IPv6', () => {
  const LINK_LOCAL = 'link-local address (cloud metadata services live there)';
  const PRIVATE_DENIED = 'loopback or private address, and private destinations are denied by the settings';
  const OWN_ADDRESS = 'an address of this machine, and private destinations are denied by the settings';
  const OWN_PORT = "Tokenbench's own port on this machine";

  it.each([
    ['[::ffff:0:169.254.169.254]', 'it carries'],
    // Read in each layout its network may use, one of them the metadata address.
    ['[64:ff9b:1:0:a9:fea9:fe00:0]', 'it may carry'],
  ])('always refuses the metadata address written %s', (address, carries) => {
    expect(refusalReason(address, 80, open)).toBe(`${LINK_LOCAL} (${carries} 169.254.169.254)`);
    expect(refusalReason(address, 80, strict)).toBe(`${LINK_LOCAL} (${carries} 169.254.169.254)`);
  });

  it.each([
    ['64:ff9b:1::808:808', '8.8.8.8'],
    ['64:ff9b:1::c000:221', '192.0.2.33'],
  ])('allows %s, the public %s through local-use NAT64 in the /96 layout DNS64 writes, even when private destinations are denied', (address) => {
    expect(refusalReason(address, 443, strict)).toBeUndefined();
  });


  it.each(['[::192.0.2.2]', '[64:ff9b::c000:202]', '[2002:c000:202::1]'])("refuses this machine's own address written %s when private destinations are denied", (address) => {
    const own = { localAddresses: () => ['192.0.2.2'] };
    expect(refusalReason(address, 443, { ...open, ...own })).toBeUndefined();
    expect(refusalReason(address, 443, { ...strict, ...own })).toBe(`${OWN_ADDRESS} (it carries 192.0.2.2)`);
  });

  it.each(['[::127.0.0.1]', '[64:ff9b::7f00:1]', '[::ffff:0:127.0.0.1]'])("refuses Tokenbench's own port on %s, whatever the settings", (address) => {
    const policy: DestinationPolicy = { ...open, ownPorts: () => [4100] };
    expect(refusalReason(address, 4100, policy)).toBe(`${OWN_PORT} (it carries 127.0.0.1)`);
    expect(refusalReason(address, 4101, policy)).toBeUndefined();
    expect(refusalReason(address, 4101, strict)).toBe(`${PRIVATE_DENIED} (it carries 127.0.0.1)`);
  });

  it('decides on every IPv4 address, in every way of writing it in IPv6, as on the address itself', () => {
    const byte = fc.integer({ min: 0, max: 255 });
    // Beside any address, ones in the ranges the policy names, and this machine's own.
    const ranges = [[127], [10], [172, 16], [172, 31], [192, 168], [100, 64], [169, 254], [0], [224], [239], [192, 0, 2, 2], [100, 100, 100, 200], [168, 63, 129, 16], [8, 8, 8, 8]];
    const ipv4 = fc.oneof(
      fc.tuple(byte, byte, byte, byte),
      fc.tuple(fc.constantFrom(...ranges), fc.tuple(byte, byte, byte, byte)).map(([start, rest]) => [...start, ...rest.slice(start.length)]),
    );
    const policies: DestinationPolicy[] = [open, strict].map((base) => ({ ...base, ownPorts: () => [4100], localAddresses: () => ['192.0.2.2'] }));
    fc.assert(
      fc.property(ipv4, fc.array(byte, { minLength: 16, maxLength: 16 }), fc.constantFrom(80, 4100), fc.constantFrom(...policies), (address, noise, port, policy) => {
        const refused = refusalReason(address.join('.'), port, policy) !== undefined;
        for (const { form, address: written, onlyReading } of embeddings(address, noise)) {
          const writtenRefused = refusalReason(written, port, policy) !== undefined;
          // A form with one reading decides as the address does; one with several is refused when any reading is,
          // but for 0.0.0.0/8, which the layouts a network does not use read in its prefix's zeros.
          if (onlyReading || (refused && address[0] !== 0)) expect(writtenRefused, `${address.join('.')} as ${form}: ${written}`).toBe(refused);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('resolution by name', () => {
  /** A resolver that answers every name with `addresses`, as a DNS server might. */
  const answering =
    (addresses: LookupAddress[]): NonNullable<DestinationPolicy['lookup']> =>
    (_hostname, _options, callback) =>
      callback(null, addresses);

  it.each([
    ['64:ff9b::7f00:1', open, 4100, "Tokenbench's own port on this machine (it carries 127.0.0.1)"],
    ['::ffff:0:a9fe:a9fe', open, 80, 'link-local address (cloud metadata services live there) (it carries 169.254.169.254)'],
    ['2002:a00:1::1', strict, 80, 'loopback or private address, and private destinations are denied by the settings (it carries 10.0.0.1)'],
  ])('refuses a name that resolves to %s as it refuses the address, in the lookup, before connecting', async (address, policy, port, reason) => {
    const connect = createPolicyConnector({ ...policy, ownPorts: () => [4100], lookup: answering([{ address, family: 6 }]) });
    const error = await new Promise<Error | null>((resolve) =>
      connect({ hostname: 'destination.test', host: `destination.test:${port}`, port: String(port), protocol: 'http:' }, (err, socket) => {
        socket?.destroy();
        resolve(err);
      }),
    );
    expect(error).toBeInstanceOf(DestinationRefusedError);
    expect(error?.message).toBe(`destination.test (${address}) port ${port}: ${reason}`);
  });
});

describe('through the proxy', () => {
  let engine: TestEngine;
  beforeAll(async () => {
    engine = await startTestEngine({ inMemory: true });
  });
  afterAll(() => engine.stop());

  it.each([
    ['[64:ff9b::7f00:1]', "Tokenbench's own port on this machine (it carries 127.0.0.1)"],
    ['[::127.0.0.1]', "Tokenbench's own port on this machine (it carries 127.0.0.1)"],
  ])("refuses the engine's own port written %s, in the proxy's error format", async (host, reason) => {
    const url = `http://${host}:${engine.engine.port}/tokens`;
    const refused = await engine.call('POST', '/proxy', { key: engine.privateKey, body: {}, headers: { 'BT-PROXY-URL': url } });
    expect(refused.status).toBe(400);
    expect(refused.headers['bt-proxy-destination-status']).toBeUndefined();
    expect(refused.body.proxy_error).toMatchObject({ status: 400, title: expect.any(String), detail: expect.stringContaining(reason) });
    expect(refused.body.proxy_error.detail).toMatch(/^destination refused by policy: /);
  });
});

describe('policy applied at connect time', () => {
  let echo: EchoServer;
  let own: TestServer;
  const forwarders: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    echo = await startEchoServer({ port: 0 });
    own = await startServer((_req, res) => res.end('should never be reached'));
  });
  afterAll(async () => {
    await Promise.all(forwarders.map((f) => f.close()));
    await echo.close();
    await own.close();
  });

  function forwarder(options: Partial<ForwarderOptions> = {}) {
    const created = createForwarder({ timeoutMs: 10_000, denyPrivateDestinations: false, ownPorts: () => [own.port], ...options });
    forwarders.push(created);
    return created;
  }



  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:169.254.169.254]/latest/meta-data/',
    'https://169.254.169.254/',
    'http://[::ffff:0:169.254.169.254]/latest/meta-data/',
    'http://[64:ff9b:1:0:a9:fea9:fe00:0]/latest/meta-data/',
  ])(
    'refuses %s with a policy 400 without opening a socket',
    async (url) => {
      const f = forwarder();
      const opened = await socketsOpenedDuring(async () => {
        const err = await rejectionOf(forwardAll(f, getRequest(url)), ForwardError);
        expect(err.kind).toBe('policy');
        expect(err.status).toBe(400);
        const port = url.startsWith('https') ? 443 : 80;
        expect(err.detail).toMatch(new RegExp(`^destination refused by policy: \\S+ port ${port}: link-local address`));
      });
      expect(opened).toBe(0);
    },
  );

  it.each(['127.0.0.1', 'localhost'])("refuses Tokenbench's own port via %s; the server sees no connection", async (host) => {
    const err = await rejectionOf(forwardAll(forwarder(), getRequest(`http://${host}:${own.port}/tokens`)), ForwardError);
    expect(err.kind).toBe('policy');
    expect(err.detail).toContain("Tokenbench's own port");
    expect(own.connections()).toBe(0);
  });

  it('reads the own ports at connect time', async () => {
    let ports: number[] = [];
    const f = forwarder({ ownPorts: () => ports });
    const first = await forwardAll(f, getRequest(`${echo.url}/a`));
    expect(first.status).toBe(200);
    ports = [echo.port];
    // A different origin (localhost vs 127.0.0.1) needs a new connection, which now hits the rule.
    const err = await rejectionOf(forwardAll(f, getRequest(`http://localhost:${echo.port}/b`)), ForwardError);
    expect(err.kind).toBe('policy');
  });

  it('allows loopback destinations by default (and the socket counter above does see real connects)', async () => {
    const f = forwarder();
    const opened = await socketsOpenedDuring(async () => {
      const result = await forwardAll(f, getRequest(`${echo.url}/ok`));
      expect(result.status).toBe(200);
    });
    expect(opened).toBe(1);
  });

  it('refuses loopback when private destinations are denied, for an IP literal and for a name resolving to it', async () => {
    const counted = await startServer((_req, res) => res.end('no'));
    try {
      const f = forwarder({ denyPrivateDestinations: true });
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', 'localhost']) {
        const err = await rejectionOf(forwardAll(f, getRequest(`http://${host}:${counted.port}/`)), ForwardError);
        expect(err.kind).toBe('policy');
        expect(err.detail).toContain('private destinations are denied');
      }
      expect(counted.connections()).toBe(0);
    } finally {
      await counted.close();
    }
  });
});
