import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import stringify from 'json-stable-stringify';

/** One POST the receiver got, with what its signature checks came to. */
export interface ReceivedDelivery {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: { delivered_at: string; event: { id: string; type: string; tenant_id: string; timestamp: string; trace_id: string | null; data: Record<string, unknown> } };
  /** PFX-SIGNATURE verified on the bytes as received. */
  rawVerified: boolean;
  /** PFX-SIGNATURE verified on the parsed body stringified again as json-stable-stringify does (the vendor's sample). */
  restringifiedVerified: boolean;
  /** What the receiver answered. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** Sets the key deliveries are verified with (PEM, as GET /keys/webhooks.v1.key serves it). */
  useKey(pem: string): void;
  /** Resolves once `count` deliveries matching `which` have arrived. */
  waitFor(count: number, which?: (delivery: ReceivedDelivery) => boolean, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO };

/**
 * A receiver on loopback as a user's app would be one: it verifies every delivery's signature with node:crypto, as the
 * vendor's sample does, and answers what `answer` says for it (2xx by default), once it says (a slow receiver's).
 */
export async function startWebhookReceiver(answer: (delivery: Omit<ReceivedDelivery, 'status'>) => number | Promise<number> = () => 200, prefix = 'BT'): Promise<WebhookReceiver> {
  let key: KeyObject | null = null;
  const received: ReceivedDelivery[] = [];
  const waiters = new Set<() => void>();
  const check = (data: string, signature: string | undefined) =>
    key !== null && signature !== undefined && verify('sha256', Buffer.from(data), { key, ...PSS }, Buffer.from(signature, 'base64'));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const signature = req.headers[`${prefix.toLowerCase()}-signature`] as string | undefined;
      const body = JSON.parse(raw) as ReceivedDelivery['body'];
      const delivery = { headers: req.headers, raw, body, rawVerified: check(raw, signature), restringifiedVerified: check(stringify(body)!, signature) };
      void Promise.resolve(answer(delivery)).then((status) => {
        received.push({ ...delivery, status });
        res.writeHead(status).end();
        for (const wake of waiters) wake();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    useKey: (pem) => void (key = createPublicKey(pem)),
    waitFor(count, which = () => true, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const done = () => {
          const matching = received.filter(which);
          if (matching.length < count) return;
          clearTimeout(timer);
          waiters.delete(done);
          resolve(matching);
        };
        const timer = setTimeout(() => {
          waiters.delete(done);
          reject(new Error(`${received.filter(which).length} of ${count} deliveries arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(done);
        done();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
