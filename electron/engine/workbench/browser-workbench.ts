import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
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
}

export type WorkbenchFallback = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

export interface BrowserWorkbench {
  /** Per-run secret the browser workbench presents on every /_workbench/ request. */
  readonly session: string;
  /** The address to open. The session rides in the fragment, which never reaches a server log or a Referer. */
  url(baseUrl: string): string;
  /** A new launch link: the address to open with a one-time code in place of the session, for a browser's command line. */
  launchUrl(baseUrl: string): string;
  /**
   * The HTTP server's fallback: answers /ui/…, /_workbench/<method> and the launch links' two paths, true when it
   * handled the request. `baseUrl` is the server's, for the links it makes.
   */
  routes(model: WorkbenchModel, baseUrl: () => string): WorkbenchFallback;
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
  const session = randomBytes(32).toString('base64url');
  const expected = Buffer.from(session);

  const codes = new LaunchCodes();

  const isSession = (given: unknown) => {
    if (typeof given !== 'string') return false;
    const bytes = Buffer.from(given);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  };
  const checkSession = (given: unknown) => {
    if (!isSession(given)) {
      throw new ApiProblem(
        401,
        'The workbench session is missing or belongs to another run: open the Workbench URL that `tokenbench serve` printed, or run `npm start` again',
      );
    }
  };

  function routes(model: WorkbenchModel, baseUrl: () => string): WorkbenchFallback {
    async function answerApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
      const name = methodNamed(path.slice(WORKBENCH_PATHS.api.length));
      if (!name) throw new ApiProblem(404, `No workbench method ${path}`);
      const streams = !isCall(name);
      const allowed = streams ? 'GET' : 'POST';
      if (req.method !== allowed) return sendProblem(res, new ApiProblem(405, `${path} answers ${allowed} only`).toBody(), { allow: allowed });
      // EventSource cannot send headers: a stream alone takes the session as a query parameter.
      checkSession(req.headers[SESSION_HEADER_KEY] ?? (streams ? queryOf(req).get(SESSION_QUERY) : undefined));
      if (!isCall(name)) return streamEvents(res, model[name]);
      const received = await readBody(req, MAX_REQUEST_BYTES);
      const reply = await callMethod(model, name, received.size === 0 ? {} : parseJsonBody(received), req.headers[PAGE_HEADER_KEY]);
      sendJson(res, 200, reply, NO_STORE);
    }

    async function answerLaunch(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
      if (req.method !== 'POST') return sendProblem(res, new ApiProblem(405, `${path} answers POST only`).toBody(), { allow: 'POST' });
      if (path === LAUNCH_PATHS.link) {
        checkSession(req.headers[SESSION_HEADER_KEY]);
        return sendJson(res, 200, { url: launchUrl(baseUrl(), codes.mint()), expires_in_seconds: LAUNCH_CODE_LIFETIME_MS / 1000 }, NO_STORE);
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
      if (path === LAUNCH_PATHS.session || path === LAUNCH_PATHS.link) return launch(req, res, path);
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

  return {
    session,
    url: (baseUrl) => `${baseUrl}${WORKBENCH_PATHS.ui}#${SESSION_QUERY}=${session}`,
    launchUrl: (baseUrl) => launchUrl(baseUrl, codes.mint()),
    routes,
  };
}
