import { networkFailureOf, type NetworkReason } from '../../../../shared/workbench/network-failures';

/**
 * What to do about a composed request that failed, by what failed: one table, so each failure offers what helps it
 * and nothing else. A network failure reads the same whoever was not reached (the destination, through the proxy; or
 * a remote target); only what to correct differs.
 */
export type FailureKind =
  | NetworkReason
  /** The proxy's forwarding: no answer in time, an answer that was not HTTP, a destination the policy refuses. */
  | 'timeout'
  | 'bad_response'
  | 'policy'
  | 'aborted'
  /** The proxy's refusals before it forwards. */
  | 'unknown_token'
  | 'token_use'
  | 'permission'
  | 'expression'
  | 'expression_limit'
  | 'proxy_caller'
  | 'key'
  | 'destination_url'
  | 'header'
  | 'body_limit'
  | 'proxy_other'
  /** The destination's own answer. */
  | 'destination_refused'
  | 'destination_failed'
  /** This engine's own front door, not reached. */
  | 'engine_down';

/** What the advice may name: where the request went, what to correct, who sent it, and the failure's own words. */
export interface FailureFacts {
  /** `host:port` of whoever was not reached, and its host name alone. */
  host: string;
  hostname: string;
  /** What to correct to point elsewhere: "the destination URL", "the base URL of “staging” (…) in Remote targets". */
  fix: string;
  /** "the destination", "the service": what should listen at `host`. */
  who: string;
  application: string | null;
  detail: string;
}

interface Advice {
  say(facts: FailureFacts): string | null;
  /** A token of the body is at fault: the answer offers to show it. */
  token?: true;
}

const sentence = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`;

/** The permission the proxy found missing, and where, granted to the application that sent the request. */
function grant({ detail, application }: FailureFacts): string {
  const [, permission, containers] = /lacks (\S+)(?: \(or [^)]+\))?(?: on container (.+))?$/.exec(detail) ?? [];
  const to = application ? `“${application}”` : 'the application';
  return `Grant ${permission ?? 'token:use'}${containers ? ` on ${containers}` : ''} to ${to} with an access rule, or send as an application that has it.`;
}

export const ADVICE: Record<FailureKind, Advice> = {
  refused: { say: ({ host, who, fix }) => `Nothing accepted a connection at ${host}: start ${who} there, or correct ${fix}.` },
  dns: { say: ({ hostname, fix }) => `The host name ${hostname} was not found: correct ${fix}, or check this machine's DNS.` },
  tls: { say: ({ host }) => `The TLS handshake with ${host} failed: its certificate is not trusted here (self-signed, expired, for another name), or it does not speak https on that port.` },
  connect_timeout: { say: ({ host }) => `${host} did not take the connection in time: check that this machine can reach it (a VPN, a firewall).` },
  reset: { say: ({ host, fix }) => `${host} closed the connection before answering: check that ${fix} has the right scheme (http or https) and port.` },
  network: { say: ({ host, fix }) => `${host} cannot be reached from this machine: check the network (a VPN, a firewall) and ${fix}.` },
  timeout: { say: ({ detail }) => `${sentence(detail)}: check the destination is up and answers in time (Settings sets the proxy timeout; a --proxy-timeout given at start wins).` },
  bad_response: { say: ({ host }) => `What answered at ${host} did not speak HTTP: check that the destination URL points at an HTTP server.` },
  policy: { say: () => 'Tokenbench refuses this destination: send to another address, or allow private destinations in Settings for a local one.' },
  aborted: { say: () => null },
  unknown_token: { token: true, say: () => 'Use a token that exists: create it, fix the id, or give an expired token a later expires_at.' },
  token_use: { token: true, say: grant },
  permission: { say: grant },
  expression: { token: true, say: () => 'Fix the expression: the checks under the body say what is wrong with it, before you send.' },
  expression_limit: { say: () => 'Send fewer expressions per request, or raise the expression limit in Settings (a --max-expressions given at start wins).' },
  proxy_caller: { say: () => 'Send as a private application that has token:use.' },
  key: { say: () => 'The key was refused: send as an application of this engine, or check the key you wrote in the headers.' },
  destination_url: { say: () => 'Fix the destination URL: an http or https address, without a user name or password, and a path that stays under it.' },
  header: { say: () => 'Remove the control character from the header: headers are sent as written.' },
  body_limit: { say: () => 'Shorten the body, or raise the body limit in Settings (a --max-body given at start wins).' },
  proxy_other: { say: () => null },
  destination_refused: { say: () => 'The destination refused what it received: read its answer below, and under Sent what left for it.' },
  destination_failed: { say: () => 'The destination failed on its side: read its answer below, and send again once it is up.' },
  engine_down: { say: () => 'Check that Tokenbench is still running (“tokenbench serve”, or the desktop app), then send again.' },
};

/** The kind of a failure of the proxy itself, from what its history entry recorded, else from its status and words. */
export function proxyFailureKind(status: number, detail: string, failure: { kind: string | null; reason?: string | null } | null): FailureKind {
  if (failure?.kind === 'unreachable') return (failure.reason as NetworkReason | null | undefined) ?? 'network';
  if (failure?.kind === 'timeout' || failure?.kind === 'bad_response' || failure?.kind === 'policy' || failure?.kind === 'aborted') return failure.kind;
  if (status === 401) return 'key';
  if (status === 413) return 'body_limit';
  if (status === 403) return / on container /.test(detail) ? 'token_use' : /lacks/.test(detail) ? 'permission' : /private application/.test(detail) ? 'proxy_caller' : 'proxy_other';
  if (/not found or expired/.test(detail)) return 'unknown_token';
  if (/expressions; at most/.test(detail)) return 'expression_limit';
  if (/expression/i.test(detail)) return 'expression';
  if (/PROXY-URL|climbs out/.test(detail)) return 'destination_url';
  if (/^header /.test(detail)) return 'header';
  return 'proxy_other';
}

/** The kind of a connection that failed with `code`; one to this engine is the engine being down, whatever the code. */
export function unreachedKind(code: string | null, remote: boolean): FailureKind {
  if (!remote) return 'engine_down';
  return (code && networkFailureOf(code)?.reason) || 'network';
}

/** Where a URL points: `host:port` (the scheme's port when it names none), and the host name alone. */
export function placeOf(url: string): Pick<FailureFacts, 'host' | 'hostname'> {
  try {
    const { hostname, port, protocol } = new URL(url);
    return { host: `${hostname}:${port || (protocol === 'https:' ? '443' : '80')}`, hostname };
  } catch {
    return { host: url, hostname: url };
  }
}
