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
  /**
   * The built-in echo destination's ports: on this machine it stays reachable when private destinations are denied,
   * allowed by what it is (this engine's own server), never by an address range.
   */
  echoPorts?: () => readonly number[];
  /** This machine's interface addresses; by default read from the system at every check, as they can change. */
  localAddresses?: () => readonly string[];
  /** Resolves a destination's name to all its addresses: the system's resolver (`dns.lookup`) unless another is given. */
  lookup?: (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;
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

const UNSPECIFIED = blockList([['0.0.0.0', 8], ['::', 128]]);
const ALWAYS_REFUSED: Array<[reason: string, ranges: BlockList]> = [
  // Metadata services outside link-local: AWS over IPv6, Alibaba Cloud, Azure's WireServer.
  ['cloud metadata address', blockList([['fd00:ec2::254', 128], ['100.100.100.200', 32], ['168.63.129.16', 32]])],
  ['link-local address (cloud metadata services live there)', blockList([['169.254.0.0', 16], ['fe80::', 10]])],
  ['unspecified address', UNSPECIFIED],
  ['multicast address', blockList([['224.0.0.0', 4], ['ff00::', 8]])],
];
const LOOPBACK = blockList([['127.0.0.0', 8], ['::1', 128]]);
const PRIVATE = blockList([['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10], ['fc00::', 7]]);

/** Canonical form; an IPv4-mapped IPv6 address (`::ffff:169.254.169.254`) becomes the IPv4 address it is. */
export function normalizeAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]; // a zone id does not change which host it is
  if (isIP(bare) !== 6) return bare;
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const bytes = bytesOf(canonical);
  return isMapped(bytes) ? ipv4At(bytes, 12) : canonical;
}

/** The sixteen bytes of a canonical IPv6 address (as the URL parser writes it: hexadecimal groups, no dotted quad). */
function bytesOf(ipv6: string): number[] {
  const [head, tail] = ipv6.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [front, back] = [parse(head), parse(tail)];
  const groups = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return groups.flatMap((group) => [group >> 8, group & 255]);
}

const ipv4At = (bytes: readonly number[], at: number) => bytes.slice(at, at + 4).join('.');
const startsWith = (bytes: readonly number[], prefix: readonly number[]) => prefix.every((byte, i) => bytes[i] === byte);
const isMapped = (bytes: readonly number[]) => startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]);

/** RFC 6052: the four bytes after a prefix of `length` bits are the IPv4 address, bits 64 to 71 (the u octet) left out. */
function rfc6052(bytes: readonly number[], length: number): string {
  const ipv4: number[] = [];
  for (let i = length / 8; ipv4.length < 4; i++) if (i !== 8) ipv4.push(bytes[i]);
  return ipv4.join('.');
}

/**
 * The IPv4 addresses a canonical IPv6 address carries, in every standard way of carrying one: IPv4-mapped
 * (`::ffff:0:0/96`), IPv4-compatible (`::/96`, but for `::` and `::1`), SIIT (`::ffff:0:0:0/96`), NAT64 (`64:ff9b::/96`),
 * local-use NAT64 (`64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo (`2001::/32`, the client's address inverted). A
 * network picks its own prefix length inside `64:ff9b:1::/48` and the address does not say which, so it is read in
 * each layout RFC 6052 allows there (/48, /56, /64, /96); translators ignore the suffix, so it is not looked at.
 */
export function embeddedIPv4(ipv6: string): string[] {
  const bytes = bytesOf(ipv6);
  if (isMapped(bytes) || startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0])) return [ipv4At(bytes, 12)];
  if (startsWith(bytes, new Array<number>(12).fill(0))) return bytes.slice(12, 15).some((byte) => byte !== 0) || bytes[15] > 1 ? [ipv4At(bytes, 12)] : [];
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return [ipv4At(bytes, 12)];
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 1])) return [...new Set([48, 56, 64, 96].map((length) => rfc6052(bytes, length)))];
  if (startsWith(bytes, [0x20, 0x02])) return [ipv4At(bytes, 2)];
  if (startsWith(bytes, [0x20, 0x01, 0, 0])) return [bytes.slice(12).map((byte) => byte ^ 0xff).join('.')];
  return [];
}

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((nics) => nics?.map((nic) => nic.address) ?? []);
}

const familyOf = (ip: string) => (isIPv4(ip) ? 'ipv4' : 'ipv6');
const inRanges = (ranges: BlockList) => (ip: string) => ranges.check(ip, familyOf(ip));

/**
 * Why `address:port` may not be connected to, or undefined when it may. An IPv6 address that carries an IPv4 address
 * is decided on both, so a range refused in IPv4 is refused however it is written.
 */
export function refusalReason(address: string, port: number, policy: DestinationPolicy): string | undefined {
  const ip = normalizeAddress(address);
  const readings = isIPv4(ip) ? [] : embeddedIPv4(ip);
  /** The reason, naming the IPv4 address it is about when that one was carried inside the address. */
  const because = (reason: string, refused: (ip: string) => boolean, among = [ip, ...readings]): string | undefined => {
    const hit = among.find(refused);
    if (hit === undefined) return undefined;
    if (hit === ip) return reason;
    return `${reason} (it ${readings.length > 1 ? 'may carry' : 'carries'} ${hit})`;
  };
  for (const [reason, ranges] of ALWAYS_REFUSED) {
    // Of a local-use NAT64 address read in several layouts, the layouts its network does not use read the zeros of
    // its prefix, as 0.0.0.0/8; a translator forwards nothing there, so those readings are no reason to refuse.
    const refused = because(reason, inRanges(ranges), ranges === UNSPECIFIED && readings.length > 1 ? [ip] : undefined);
    if (refused !== undefined) return refused;
  }
  let own: Set<string> | undefined;
  const isOwn = (ip: string) => (own ??= new Set((policy.localAddresses ?? interfaceAddresses)().map(normalizeAddress))).has(ip);
  if (policy.ownPorts().includes(port)) {
    const refused = because("Tokenbench's own port on this machine", (ip) => inRanges(LOOPBACK)(ip) || isOwn(ip));
    if (refused !== undefined) return refused;
  }
  if (!policy.denyPrivateDestinations) return undefined;
  if (policy.echoPorts?.().includes(port) && (inRanges(LOOPBACK)(ip) || isOwn(ip))) return undefined;
  return (
    because('loopback or private address, and private destinations are denied by the settings', (ip) => inRanges(LOOPBACK)(ip) || inRanges(PRIVATE)(ip)) ??
    because('an address of this machine, and private destinations are denied by the settings', isOwn)
  );
}

/** A DNS lookup that fails when any address the name resolves to is refused for this port. */
function policyLookup(port: number, policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    (policy.lookup ?? dns.lookup)(hostname, { ...options, all: true }, (err, addresses) => {
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

/**
 * Why the policy would refuse to connect to `url` now (its host resolved as a connection would resolve it), or
 * undefined when it would not, or when the name does not resolve at all: that is a delivery's failure to report, not
 * a refusal.
 */
export function destinationRefusal(url: URL, policy: DestinationPolicy): Promise<string | undefined> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return Promise.resolve(refusalReason(host, port, policy));
  return new Promise((resolve) => {
    policyLookup(port, policy)(host, { all: true }, (err) => resolve(err instanceof DestinationRefusedError ? err.message : undefined));
  });
}
