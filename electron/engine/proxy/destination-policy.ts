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
  /** Also refuse loopback and private ranges (off by default: local mock servers are the common target). */
  denyPrivateDestinations: boolean;
  /** Tokenbench's own listening ports, read at every connect since they can change while running. */
  ownPorts: () => readonly number[];
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

function isLocalAddress(address: string, family: 'ipv4' | 'ipv6'): boolean {
  if (LOOPBACK.check(address, family)) return true;
  return Object.values(os.networkInterfaces()).some((nics) => nics?.some((nic) => normalizeAddress(nic.address) === address));
}

/** Why `address:port` may not be connected to, or undefined when it may. */
export function refusalReason(address: string, port: number, policy: DestinationPolicy): string | undefined {
  const ip = normalizeAddress(address);
  const family = isIPv4(ip) ? 'ipv4' : 'ipv6';
  for (const [reason, ranges] of ALWAYS_REFUSED) if (ranges.check(ip, family)) return reason;
  if (policy.ownPorts().includes(port) && isLocalAddress(ip, family)) return "Tokenbench's own port on this machine";
  if (policy.denyPrivateDestinations && (LOOPBACK.check(ip, family) || PRIVATE.check(ip, family))) {
    return 'loopback or private address, and private destinations are denied by the settings';
  }
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
