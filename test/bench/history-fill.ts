import { Agent, request } from 'undici';
import { cardExpression, createBenchCards } from './proxy-requests';

const IN_FLIGHT = 6;

/** What a seeded request is: every tenth-share of the traffic asks for something else, some of it failing. */
interface Seeded {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The status it must get; `failure` for any 4xx/5xx the proxy chooses itself. */
  status: number | 'failure';
}

/** A padded request number, so a text filter can name exactly one request. */
export const seededTag = (n: number) => String(n).padStart(5, '0');
/** In the path of the vault reads that fail with 404 (a tenth of the requests), before their number. */
export const MISSING = 'missing-';
/** The last of those reads among `count` seeded requests. */
export const lastMissing = (count: number) => count - 1 - ((((count - 1 - 3) % 10) + 10) % 10);

/**
 * Fills the history with `count` real requests through the API (a few in flight): vault reads (found and not
 * found), requests proxied to the echo destination (answered, or failed by the destination), and proxy errors (a
 * token that does not exist, a destination that refuses connections). Checks each status; the history is written
 * behind the answers, so call `waitForHistory` before reading it.
 */
export async function fillHistory(url: string, echoUrl: string, apiKey: string, count: number): Promise<void> {
  const [card] = await createBenchCards(url, apiKey, 1);
  const proxied = (destination: string, expression: string, n: number): Omit<Seeded, 'status'> => ({
    method: 'POST',
    path: '/proxy',
    headers: { 'bt-proxy-url': destination },
    body: JSON.stringify({ order: seededTag(n), card: expression }),
  });
  const echo = echoUrl.replace(/\/$/, '');
  const seeded = (n: number): Seeded => {
    switch (n % 10) {
      case 0:
      case 1:
      case 2:
        return { method: 'GET', path: `/tokens/${card.id}`, status: 200 };
      case 3:
        return { method: 'GET', path: `/tokens/${MISSING}${seededTag(n)}`, status: 404 };
      case 4:
      case 5:
      case 6:
        return { ...proxied(`${echo}/orders/${seededTag(n)}`, cardExpression(card), n), status: 200 };
      case 7:
        return { ...proxied(`${echo}/status/502/orders/${seededTag(n)}`, cardExpression(card), n), status: 502 };
      case 8:
        return { ...proxied(`${echo}/orders/${seededTag(n)}`, `{{ no-such-token-${seededTag(n)} | json: '$.number' }}`, n), status: 'failure' };
      default:
        // Port 9 (discard) on loopback: nothing listens there, so the proxy's connection is refused.
        return { ...proxied(`http://127.0.0.1:9/orders/${seededTag(n)}`, cardExpression(card), n), status: 'failure' };
    }
  };

  const dispatcher = new Agent({ connections: IN_FLIGHT });
  let next = 0;
  async function worker(): Promise<void> {
    while (next < count) {
      const n = next++;
      const { method, path, headers, body, status } = seeded(n);
      const reply = await request(url + path, {
        method,
        dispatcher,
        headers: { 'content-type': 'application/json', 'bt-api-key': apiKey, ...headers },
        body,
      });
      const text = await reply.body.text();
      const wrong = status === 'failure' ? reply.statusCode < 400 : reply.statusCode !== status;
      if (wrong) throw new Error(`seeding ${method} ${path}: answered ${reply.statusCode}, expected ${status}: ${text.slice(0, 300)}`);
    }
  }
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    await dispatcher.close();
  }
}
