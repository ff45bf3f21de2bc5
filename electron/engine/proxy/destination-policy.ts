/**
 * Which addresses the proxy may connect to. Checked on the resolved address at connect time (inside the undici
 * connector's DNS lookup), so a name that resolves to a safe address now and a forbidden one later
 * (DNS rebinding) is still caught; IP-literal destinations skip DNS and are checked before connecting.
 */
import dns from 'node:dns';
import { BlockList, isIP, isIPv4, type LookupFunction } from 'node:net';
import os from 'node:os';
import { buildConnector } from 'undici';

export interface DestinationPolicy {
  /** Also refuse loopback and private ranges and this machine's own addresses (off by default: local mock servers are the common target). */
  denyPrivateDestinations: boolean;
  /** Tokenbench's own listening ports, read at every connect since they can change while running. */
  ownPorts: () => readonly number[];
  /** This machine's interface addresses; by default read from the system at every check, as they can change. */
  localAddresses?: () => readonly string[];
}

export class DestinationRefusedError extends Error {
  readonly code = 'ERR_TOKENBENCH_DESTINATION_REFUSED';

  constructor(host: string, address: string, port: number, reason: string) {
    super(`${host === address ? address : `${host} (${address})`} port ${port}: ${reason}`);
    this.name = 'DestinationRefusedError';
  }
}

function blockList(subnets: Array<[network: string, prefix: number]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, isIPv4(network) ? 'ipv4' : 'ipv6');
  return list;
}

const ALWAYS_REFUSED: Array<[reason: string, ranges: BlockList]> = [
  // Metadata services outside link-local: AWS over IPv6, Alibaba Cloud, Azure's WireServer.
  ['cloud metadata address', blockList([['fd00:ec2::254', 128], ['100.100.100.200', 32], ['168.63.129.16', 32]])],
  ['link-local address (cloud metadata services live there)', blockList([['169.254.0.0', 16], ['fe80::', 10]])],
  ['unspecified address', blockList([['0.0.0.0', 8], ['::', 128]])],
  ['multicast address', blockList([['224.0.0.0', 4], ['ff00::', 8]])],
];
const LOOPBACK = blockList([['127.0.0.0', 8], ['::1', 128]]);
const PRIVATE = blockList([['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10], ['fc00::', 7]]);

const MAPPED_IPV4 = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/;

/** Canonical form; an IPv4-mapped IPv6 address (`::ffff:169.254.169.254`) becomes the IPv4 address it is. */
export function normalizeAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]; // a zone id does not change which host it is
  if (isIP(bare) !== 6) return bare;
  const canonical = new URL(`http://[${bare}]/`).hostname;
  const mapped = MAPPED_IPV4.exec(canonical);
  if (mapped === null) return canonical.slice(1, -1);
  const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** The eight 16-bit groups of a canonical IPv6 address (as normalizeAddress writes it). */
function groupsOf(ipv6: string): number[] {
  const [head, tail] = ipv6.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [front, back] = [parse(head), parse(tail)];
  return tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4Of = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * The IPv4 addresses an IPv6 address leads to by the standard ways of carrying one: IPv4-compatible (`::a.b.c.d`),
 * NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo (`2001::/32`, client bits inverted). A
 * metadata address reached through one of them is still that address.
 */
function carriedIPv4(ipv6: string): string[] {
  const g = groupsOf(ipv6);
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  if (zeros(0, 6) && (g[6] !== 0 || g[7] > 1)) return [ipv4Of(g[6], g[7])];
  if (g[0] === 0x64 && g[1] === 0xff9b && (zeros(2, 6) || g[2] === 1)) return [ipv4Of(g[6], g[7])];
  if (g[0] === 0x2002) return [ipv4Of(g[1], g[2])];
  if (g[0] === 0x2001 && g[1] === 0) return [ipv4Of(g[2], g[3]), ipv4Of(g[6] ^ 0xffff, g[7] ^ 0xffff)];
  return [];
}

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((nics) => nics?.map((nic) => nic.address) ?? []);
}

function isOwnAddress(address: string, policy: DestinationPolicy): boolean {
  return (policy.localAddresses ?? interfaceAddresses)().some((own) => normalizeAddress(own) === address);
}

function isLocalAddress(address: string, family: 'ipv4' | 'ipv6', policy: DestinationPolicy): boolean {
  return LOOPBACK.check(address, family) || isOwnAddress(address, policy);
}

const familyOf = (ip: string) => (isIPv4(ip) ? 'ipv4' : 'ipv6');

/** Why `address:port` may not be connected to, or undefined when it may. */
export function refusalReason(address: string, port: number, policy: DestinationPolicy): string | undefined {
  const ip = normalizeAddress(address);
  const family = familyOf(ip);
  const reached = family === 'ipv6' ? [ip, ...carriedIPv4(ip)] : [ip];
  for (const [reason, ranges] of ALWAYS_REFUSED) if (reached.some((a) => ranges.check(a, familyOf(a)))) return reason;
  if (policy.ownPorts().includes(port) && isLocalAddress(ip, family, policy)) return "Tokenbench's own port on this machine";
  if (!policy.denyPrivateDestinations) return undefined;
  if (reached.some((a) => LOOPBACK.check(a, familyOf(a)) || PRIVATE.check(a, familyOf(a)))) {
    return 'loopback or private address, and private destinations are denied by the settings';
  }
  if (isOwnAddress(ip, policy)) return 'an address of this machine, and private destinations are denied by the settings';
  return undefined;
}

/** A DNS lookup that fails when any address the name resolves to is refused for this port. */
function policyLookup(port: number, policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const { address } of addresses) {
        const reason = refusalReason(address, port, policy);
        if (reason !== undefined) return callback(new DestinationRefusedError(hostname, address, port, reason), []);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * An undici connector that applies the policy. One inner connector per destination port, because the
 * own-port rule needs the port and a lookup function only sees the host name.
 */
export function createPolicyConnector(policy: DestinationPolicy, options: buildConnector.BuildOptions = {}): buildConnector.connector {
  const byPort = new Map<number, buildConnector.connector>();
  return (target, callback) => {
    const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
    if (isIP(target.hostname) !== 0) {
      const reason = refusalReason(target.hostname, port, policy);
      if (reason !== undefined) return callback(new DestinationRefusedError(target.hostname, target.hostname, port, reason), null);
    }
    let connect = byPort.get(port);
    if (connect === undefined) {
      connect = buildConnector({ ...options, lookup: policyLookup(port, policy) });
      byPort.set(port, connect);
    }
    connect(target, callback);
  };
}
