import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestLog } from '../history/request-log';
import { sendJson } from '../server/http-server';
import { ApiProblem } from '../server/problem';
import { parseWith } from '../server/validation';
import { historyQuerySchema, revealQuerySchema, type EngineStatus, type RevealedOutbound, type SentLiveEvent } from '../../../shared/workbench/contract';
import { SESSION_HEADER, SESSION_QUERY, WORKBENCH_PATHS } from '../../../shared/workbench/transport';
import { LiveFeed } from './live-feed';
import { loadUiFiles, sendUiFile } from './ui-files';

export interface WorkbenchOptions {
  /** The built renderer (`out/renderer`, made by `npm run build`). */
  uiDir: string;
}

export interface WorkbenchSources {
  history: RequestLog;
  status: () => EngineStatus;
  /** The explicit reveal of a proxied request's outbound body (Engine.revealOutbound). */
  revealOutbound: (entryId: string) => Promise<string>;
}

export type WorkbenchFallback = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

export interface Workbench {
  /** Per-run secret the browser workbench presents on every /_workbench/ request. */
  readonly session: string;
  /** The address to open. The session rides in the fragment, which never reaches a server log or a Referer. */
  url(baseUrl: string): string;
  /** The HTTP server's fallback over these sources: answers /ui/… and /_workbench/…, true when it handled the request. */
  routes(sources: WorkbenchSources): WorkbenchFallback;
}

const SESSION_HEADER_KEY = SESSION_HEADER.toLowerCase();
/** Comments on an idle stream, so a dead client is noticed and nothing in between times it out. */
const HEARTBEAT_MS = 25_000;

function streamLive(res: ServerResponse, feed: LiveFeed, status: () => EngineStatus): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
  const send = (event: SentLiveEvent) => res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.write('retry: 2000\n\n');
  send({ type: 'connected', status: status() });
  const unsubscribe = feed.subscribe(send);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS).unref();
  res.once('close', () => {
    unsubscribe();
    clearInterval(heartbeat);
  });
}

function sendProblem(res: ServerResponse, problem: ApiProblem): void {
  sendJson(res, problem.status, problem.toBody(), problem.status === 405 ? { allow: 'GET' } : {});
}

function queryOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '';
  const at = url.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
}

/**
 * The engine side of the browser workbench: the built renderer under /ui/, and its JSON and Server-Sent-Events
 * endpoints under /_workbench/ behind a per-run session. It runs after the server's Host and Origin guards, and
 * outside the router, so the GUI's own requests never show up in the history it displays.
 *
 * Reads the UI build here, so a missing build fails before the engine opens anything.
 */
export function createWorkbench(options: WorkbenchOptions): Workbench {
  const files = loadUiFiles(options.uiDir, WORKBENCH_PATHS.ui);
  const session = randomBytes(32).toString('base64url');
  const expected = Buffer.from(session);

  const isSession = (given: unknown) => {
    if (typeof given !== 'string') return false;
    const bytes = Buffer.from(given);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  };

  function routes(sources: WorkbenchSources): WorkbenchFallback {
    const feed = new LiveFeed(sources.history, sources.status);

    function answerApi(req: IncomingMessage, res: ServerResponse, path: string): void {
      if (req.method !== 'GET') throw new ApiProblem(405, `${WORKBENCH_PATHS.api} answers GET only`);
      const query = queryOf(req);
      const live = path === WORKBENCH_PATHS.live;
      // EventSource cannot send headers: the live stream alone takes the session as a query parameter.
      if (!isSession(req.headers[SESSION_HEADER_KEY] ?? (live ? query.get(SESSION_QUERY) : undefined))) {
        throw new ApiProblem(401, 'The workbench session is missing or belongs to another run: open the Workbench URL that `tokenbench serve` printed');
      }
      if (live) return streamLive(res, feed, sources.status);
      if (path === WORKBENCH_PATHS.status) return sendJson(res, 200, sources.status());
      if (path === WORKBENCH_PATHS.history) {
        const { limit, before } = parseWith(historyQuerySchema, Object.fromEntries(query));
        // The history is read in its worker thread: the answer comes later.
        sources.history.list(limit, before).then(
          (data) => sendJson(res, 200, { data }),
          (error: Error) => sendProblem(res, new ApiProblem(503, error.message)),
        );
        return;
      }
      if (path === WORKBENCH_PATHS.reveal) {
        const { id } = parseWith(revealQuerySchema, Object.fromEntries(query));
        sources.revealOutbound(id).then(
          // Plaintext: no cache may keep it.
          (detokenized_body) => sendJson(res, 200, { detokenized_body } satisfies RevealedOutbound, { 'cache-control': 'no-store' }),
          (error: Error) => sendProblem(res, error instanceof ApiProblem ? error : new ApiProblem(503, error.message)),
        );
        return;
      }
      throw new ApiProblem(404, `No workbench endpoint ${path}`);
    }

    return (req, res, path) => {
      if (path.startsWith(WORKBENCH_PATHS.api)) {
        try {
          answerApi(req, res, path);
        } catch (error) {
          if (!(error instanceof ApiProblem)) throw error;
          sendProblem(res, error);
        }
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
