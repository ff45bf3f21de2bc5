import type { z } from 'zod';
import {
  engineStatusSchema,
  historyPageSchema,
  liveEventSchema,
  revealedOutboundSchema,
  type WorkbenchApi,
} from '../../../shared/workbench/contract';
import { SESSION_HEADER, SESSION_QUERY, WORKBENCH_PATHS } from '../../../shared/workbench/transport';

const OPEN_THE_PRINTED_URL = 'Open the Workbench URL that `tokenbench serve` printed.';

/** The workbench contract over the engine's HTTP endpoints (same origin): fetch for reads, Server-Sent Events for live history. */
export function httpClient(session: string | null): WorkbenchApi {
  async function get<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>> {
    if (!session) throw new Error(`This page was opened without a workbench session. ${OPEN_THE_PRINTED_URL}`);
    let response: Response;
    try {
      response = await fetch(path, { headers: { [SESSION_HEADER]: session }, cache: 'no-store' });
    } catch {
      throw new Error('Cannot reach the Tokenbench engine. Is `tokenbench serve` still running?');
    }
    if (response.status === 401) {
      throw new Error(`The workbench session in this link is not the running engine's (each start makes a new one). ${OPEN_THE_PRINTED_URL}`);
    }
    if (!response.ok) {
      // The engine's problem details say why (a token deleted since, a permission withdrawn, …).
      const problem = (await response.json().catch(() => null)) as { detail?: unknown } | null;
      throw new Error(typeof problem?.detail === 'string' ? problem.detail : `The engine answered ${response.status} to ${path}.`);
    }
    return schema.parse(await response.json());
  }

  return {
    getStatus: () => get(WORKBENCH_PATHS.status, engineStatusSchema),
    async listHistory({ limit, before } = {}) {
      const query = new URLSearchParams();
      if (limit !== undefined) query.set('limit', String(limit));
      if (before !== undefined) query.set('before', before);
      return (await get(`${WORKBENCH_PATHS.history}?${query}`, historyPageSchema)).data;
    },
    revealOutbound: (id) => get(`${WORKBENCH_PATHS.reveal}?${new URLSearchParams({ id })}`, revealedOutboundSchema),
    onHistory(listener) {
      const source = new EventSource(`${WORKBENCH_PATHS.live}?${new URLSearchParams({ [SESSION_QUERY]: session ?? '' })}`);
      source.onmessage = (message: MessageEvent<string>) => listener(liveEventSchema.parse(JSON.parse(message.data)));
      // EventSource retries by itself unless the engine refused it (then it is CLOSED).
      source.onerror = () => listener({ type: 'lost', retrying: source.readyState !== EventSource.CLOSED });
      return () => source.close();
    },
  };
}
