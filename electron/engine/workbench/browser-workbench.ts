import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';
import { isCall, methodNamed, type WorkbenchModel } from '../../../shared/workbench/methods';
import {
  LAUNCH_PATHS,
  launchUrl,
  PAGE_HEADER,
  type Problem,
  SESSION_HEADER,
  SESSION_QUERY,
  WORKBENCH_PATHS,
} from '../../../shared/workbench/transport';
import { asPerson } from '../people/acting-person';
import type { CredentialStore, WorkbenchPerson } from '../people/credential-store';
import { sessionFromSecret } from '../people/session-secret';
import { parseJsonBody, readBody } from '../server/body';
import { sendJson } from '../server/http-server';
import { ApiProblem } from '../server/problem';
import { parseWith } from '../server/validation';
import { LAUNCH_CODE_LIFETIME_MS, LaunchCodes, type Redeemed } from './launch-codes';
import { loadUiFiles, sendUiFile } from './ui-files';
import { callMethod, problemOf } from './workbench-model';

export interface BrowserWorkbenchOptions {
  /** The built renderer (`out/renderer`, made by `npm run build`). */
  uiDir: string;
  /**
   * The owner's session (sessionFromSecret's form of TOKENBENCH_SESSION_SECRET), the same across restarts; it is then
   * never put in an address the engine prints or shows. Default: a random one per run.
   */
  ownerSession?: string;
  /**
   * A header an authenticating reverse proxy sets to the name of the person it signed in: trusted only on requests
   * whose connection comes from one of `trustedProxies` (addresses or CIDR ranges), ignored on any other.
   */
  identity?: { header: string; trustedProxies: string[] };
}

export type WorkbenchFallback = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

export interface BrowserWorkbench {
  /** The owner's session, which the browser workbench presents on every /_workbench/ request. */
  readonly session: string;
  /** Whether the owner's session is this run's own, so that `url` carries it; false when it came from the environment. */
  readonly sessionInAddress: boolean;
  /**
   * The address to open. The owner's per-run session rides in the fragment, which never reaches a server log or a
   * Referer; `forOwner` false (a named person's Settings) or a session from the environment: the bare address.
   */
  url(baseUrl: string, forOwner?: boolean): string;
  /** A new launch link: the address to open with a one-time code in place of the session, for a browser's command line. */
  launchUrl(baseUrl: string): string;
  /**
   * The HTTP server's fallback: answers /ui/…, /_workbench/<method> and the launch links' two paths, true when it
   * handled the request. `baseUrl` is the server's, for the links it makes.
   */
  routes(model: WorkbenchModel, baseUrl: () => string, people: CredentialStore): WorkbenchFallback;
}

const SESSION_HEADER_KEY = SESSION_HEADER.toLowerCase();
const PAGE_HEADER_KEY = PAGE_HEADER.toLowerCase();
/** Comments on an idle stream, so a dead client is noticed and nothing in between times it out. */
const HEARTBEAT_MS = 25_000;
/** Workbench requests are small (a query, an id); the bound only stops a runaway body. */
const MAX_REQUEST_BYTES = 1024 * 1024;
/** Every answer may hold plaintext the user asked for (a reveal): no cache keeps any of them. */
const NO_STORE = { 'cache-control': 'no-store' };
/** A launch code's exchange is a few dozen bytes. */
const MAX_EXCHANGE_BYTES = 1024;
const exchangeRequest = z.strictObject({ code: z.string() });
const signInRequest = z.strictObject({ credential: z.string().min(1, 'Paste your workbench credential') });

const SESSION_REFUSED =
  'The workbench session is missing, has ended or belongs to another run: sign in with your workbench credential, or open the Workbench URL that `tokenbench serve` printed, or run `npm start` again';
const CREDENTIAL_REFUSED =
  'No workbench credential matches: it was revoked, or mistyped. Ask whoever runs this Tokenbench for a new one (`tokenbench credentials create NAME`).';

const NEW_LINK = 'Run “npm start” again for a new link: it opens the workbench that is running.';
/** What the page tells its user when its link's code buys nothing: what happened, and how to get a new link. */
const REFUSED_CODE: Record<Exclude<Redeemed, 'ok'>, string> = {
  used: `This workbench link was already used: a link works once. ${NEW_LINK}`,
  expired: `This workbench link has expired: a link works for ${LAUNCH_CODE_LIFETIME_MS / 60_000} minutes. ${NEW_LINK}`,
  unknown: `This workbench link is not from the running Tokenbench (each start makes its own). ${NEW_LINK}`,
};

function sendProblem(res: ServerResponse, problem: Problem, headers: Record<string, string> = {}): void {
  sendJson(res, problem.status, problem, { ...NO_STORE, ...headers });
}

function queryOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '';
  const at = url.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
}

/** The trusted proxies' addresses and ranges (`10.0.0.5`, `10.0.0.0/8`, `::1`), checked already by the engine's config. */
function trustedList(addresses: readonly string[]): BlockList {
  const list = new BlockList();
  for (const address of addresses) {
    const [ip, prefix] = address.split('/');
    const type = isIPv6(ip) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(prefix), type);
  }
  return list;
}

/** Whether a connection comes from a trusted proxy; an IPv4 peer on a dual-stack socket arrives as ::ffff:a.b.c.d. */
function fromTrusted(trusted: BlockList, remote: string | undefined): boolean {
  if (remote === undefined) return false;
  const ip = remote.startsWith('::ffff:') && isIPv4(remote.slice(7)) ? remote.slice(7) : remote;
  return trusted.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4');
}

/** Answers one stream subscriber with Server-Sent Events until it goes away. */
function streamEvents(res: ServerResponse, subscribe: (listener: (event: unknown) => void) => () => void): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...NO_STORE });
  res.write('retry: 2000\n\n');
  const unsubscribe = subscribe((event) => res.write(`data: ${JSON.stringify(event)}\n\n`));
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS).unref();
  res.once('close', () => {
    unsubscribe();
    clearInterval(heartbeat);
  });
}

/**
 * The engine side of the browser workbench: the built renderer under /ui/, and the method table under /_workbench/
 * behind a per-run session: a call is `POST /_workbench/<name>` with its request as JSON, a stream is
 * `GET /_workbench/<name>` as Server-Sent Events. It runs after the server's Host and Origin guards, and outside the
 * router, so the GUI's own requests never show up in the history it displays.
 *
 * Reads the UI build here, so a missing build fails before the engine opens anything.
 */
export function createBrowserWorkbench(options: BrowserWorkbenchOptions): BrowserWorkbench {
  const files = loadUiFiles(options.uiDir, WORKBENCH_PATHS.ui);
  const session = options.ownerSession ?? randomBytes(32).toString('base64url');
  const expected = Buffer.from(session);
  const identity = options.identity && { header: options.identity.header.toLowerCase(), trusted: trustedList(options.identity.trustedProxies) };

  const codes = new LaunchCodes();

  const isSession = (given: unknown) => {
    if (typeof given !== 'string') return false;
    const bytes = Buffer.from(given);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  };
  /** The owner's own session: launch links trade for it, so only the owner may ask for one. */
  const checkOwner = (given: unknown) => {
    if (!isSession(given)) throw new ApiProblem(401, SESSION_REFUSED);
  };

  function routes(model: WorkbenchModel, baseUrl: () => string, people: CredentialStore): WorkbenchFallback {
    /**
     * Who a /_workbench/ request acts for (null: the owner): the person a trusted proxy's header names, else the
     * session's holder, read from the store at each request so that a revoked credential's sessions end at once.
     */
    async function personOf(req: IncomingMessage, given: unknown): Promise<WorkbenchPerson | null> {
      const named = identity && fromTrusted(identity.trusted, req.socket.remoteAddress) ? req.headers[identity.header] : undefined;
      if (typeof named === 'string' && named !== '') {
        const person = await people.personNamed(named);
        if (!person) throw new ApiProblem(403, `The identity header names “${named}”, who holds no workbench credential here: create one with \`tokenbench credentials create NAME\``);
        return person;
      }
      if (isSession(given)) return null;
      const person = typeof given === 'string' && given !== '' ? await people.personOfSession(given) : null;
      if (!person) throw new ApiProblem(401, SESSION_REFUSED);
      return person;
    }

    async function answerApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
      const name = methodNamed(path.slice(WORKBENCH_PATHS.api.length));
      if (!name) throw new ApiProblem(404, `No workbench method ${path}`);
      const streams = !isCall(name);
      const allowed = streams ? 'GET' : 'POST';
      if (req.method !== allowed) return sendProblem(res, new ApiProblem(405, `${path} answers ${allowed} only`).toBody(), { allow: allowed });
      // EventSource cannot send headers: a stream alone takes the session as a query parameter.
      const person = await personOf(req, req.headers[SESSION_HEADER_KEY] ?? (streams ? queryOf(req).get(SESSION_QUERY) : undefined));
      if (!isCall(name)) return streamEvents(res, model[name]);
      const received = await readBody(req, MAX_REQUEST_BYTES);
      const request = received.size === 0 ? {} : parseJsonBody(received);
      const reply = await asPerson(person, () => callMethod(model, name, request, req.headers[PAGE_HEADER_KEY]));
      sendJson(res, 200, reply, NO_STORE);
    }

    async function answerLaunch(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
      if (req.method !== 'POST') return sendProblem(res, new ApiProblem(405, `${path} answers POST only`).toBody(), { allow: 'POST' });
      if (path === LAUNCH_PATHS.link) {
        checkOwner(req.headers[SESSION_HEADER_KEY]);
        return sendJson(res, 200, { url: launchUrl(baseUrl(), codes.mint()), expires_in_seconds: LAUNCH_CODE_LIFETIME_MS / 1000 }, NO_STORE);
      }
      if (path === LAUNCH_PATHS.signIn) {
        const { credential } = parseWith(signInRequest, parseJsonBody(await readBody(req, MAX_EXCHANGE_BYTES)));
        // The owner's secret signs in too (a session from the environment is printed nowhere), in either base64 form.
        if (isSession(sessionFromSecret(credential) ?? credential)) return sendJson(res, 200, { session, name: null }, NO_STORE);
        const signed = await people.signIn(credential);
        if (!signed) throw new ApiProblem(401, CREDENTIAL_REFUSED);
        return sendJson(res, 200, { session: signed.session, name: signed.person.name }, NO_STORE);
      }
      const { code } = parseWith(exchangeRequest, parseJsonBody(await readBody(req, MAX_EXCHANGE_BYTES)));
      const redeemed = codes.redeem(code);
      if (redeemed !== 'ok') throw new ApiProblem(401, REFUSED_CODE[redeemed]);
      sendJson(res, 200, { session }, NO_STORE);
    }

    const answering = (answer: typeof answerApi) => (req: IncomingMessage, res: ServerResponse, path: string) => {
      answer(req, res, path).catch((error: unknown) => {
        if (res.headersSent) return void res.destroy();
        sendProblem(res, problemOf(error));
      });
      return true;
    };
    const api = answering(answerApi);
    const launch = answering(answerLaunch);

    return (req, res, path) => {
      if (path.startsWith(WORKBENCH_PATHS.api)) return api(req, res, path);
      if (path === LAUNCH_PATHS.session || path === LAUNCH_PATHS.link || path === LAUNCH_PATHS.signIn) return launch(req, res, path);
      if (`${path}/` === WORKBENCH_PATHS.ui) {
        res.writeHead(301, { location: WORKBENCH_PATHS.ui }).end();
        return true;
      }
      const file = req.method === 'GET' || req.method === 'HEAD' ? files.get(path) : undefined;
      if (!file) return false;
      sendUiFile(req, res, file);
      return true;
    };
  }

  const sessionInAddress = options.ownerSession === undefined;
  return {
    session,
    sessionInAddress,
    url: (baseUrl, forOwner = true) => `${baseUrl}${WORKBENCH_PATHS.ui}${sessionInAddress && forOwner ? `#${SESSION_QUERY}=${session}` : ''}`,
    launchUrl: (baseUrl) => launchUrl(baseUrl, codes.mint()),
    routes,
  };
}
