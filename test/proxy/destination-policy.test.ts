import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoServer, type EchoServer } from '../../electron/engine/echo/echo-server';
import { normalizeAddress, refusalReason, type DestinationPolicy } from '../../electron/engine/proxy/destination-policy';
import { createForwarder, ForwardError, type ForwarderOptions } from '../../electron/engine/proxy/forwarder';
import { startServer, type TestServer } from './support/loopback';
import { forwardAll, getRequest, rejectionOf } from './support/forwarding';

const open: DestinationPolicy = { denyPrivateDestinations: false, ownPorts: () => [] };
const strict: DestinationPolicy = { denyPrivateDestinations: true, ownPorts: () => [] };

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
    expect(refusalReason(address, 80, strict)).toBe('loopback or private address, and private destinations are denied by the settings');
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

  it.each(['http://169.254.169.254/latest/meta-data/', 'http://[::ffff:169.254.169.254]/latest/meta-data/', 'https://169.254.169.254/'])(
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
