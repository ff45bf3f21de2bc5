import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isCall, methodNamed, type WorkbenchModel } from '../../../shared/workbench/methods';
import { PAGE_HEADER, type Problem, SESSION_HEADER, SESSION_QUERY, WORKBENCH_PATHS } from '../../../shared/workbench/transport';
import { parseJsonBody, readBody } from '../server/body';
import { sendJson } from '../server/http-server';
import { ApiProblem } from '../server/problem';
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
  /** The HTTP server's fallback: answers /ui/… and /_workbench/<method>, true when it handled the request. */
  routes(model: WorkbenchModel): WorkbenchFallback;
}

const SESSION_HEADER_KEY = SESSION_HEADER.toLowerCase();
const PAGE_HEADER_KEY = PAGE_HEADER.toLowerCase();
/** Comments on an idle stream, so a dead client is noticed and nothing in between times it out. */
const HEARTBEAT_MS = 25_000;
/** Workbench requests are small (a query, an id); the bound only stops a runaway body. */
const MAX_REQUEST_BYTES = 1024 * 1024;
/** Every answer may hold plaintext the user asked for (a reveal): no cache keeps any of them. */
const NO_STORE = { 'cache-control': 'no-store' };

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

  const isSession = (given: unknown) => {
    if (typeof given !== 'string') return false;
    const bytes = Buffer.from(given);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  };

  function routes(model: WorkbenchModel): WorkbenchFallback {
    async function answerApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
      const name = methodNamed(path.slice(WORKBENCH_PATHS.api.length));
      if (!name) throw new ApiProblem(404, `No workbench method ${path}`);
      const streams = !isCall(name);
      const allowed = streams ? 'GET' : 'POST';
      if (req.method !== allowed) return sendProblem(res, new ApiProblem(405, `${path} answers ${allowed} only`).toBody(), { allow: allowed });
      // EventSource cannot send headers: a stream alone takes the session as a query parameter.
      if (!isSession(req.headers[SESSION_HEADER_KEY] ?? (streams ? queryOf(req).get(SESSION_QUERY) : undefined))) {
        throw new ApiProblem(401, 'The workbench session is missing or belongs to another run: open the Workbench URL that `tokenbench serve` printed');
      }
      if (!isCall(name)) return streamEvents(res, model[name]);
      const received = await readBody(req, MAX_REQUEST_BYTES);
      const reply = await callMethod(model, name, received.size === 0 ? {} : parseJsonBody(received), req.headers[PAGE_HEADER_KEY]);
      sendJson(res, 200, reply, NO_STORE);
    }

    return (req, res, path) => {
      if (path.startsWith(WORKBENCH_PATHS.api)) {
        answerApi(req, res, path).catch((error: unknown) => {
          if (res.headersSent) return void res.destroy();
          sendProblem(res, problemOf(error));
        });
        return true;
      }
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

  return { session, url: (baseUrl) => `${baseUrl}${WORKBENCH_PATHS.ui}#${SESSION_QUERY}=${session}`, routes };
}
