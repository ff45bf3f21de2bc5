import type { IncomingMessage } from 'node:http';
import { ApiProblem } from './problem';

/** How much of an oversized body we read and discard so the client can still receive its 413. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

const tooLarge = (limit: number) => new ApiProblem(413, `Request body is larger than the limit of ${limit} bytes`);

/**
 * Reads the whole body, never more than `limit` bytes into memory. Beyond it the rest is read and dropped (up to a
 * bound), so the client finishes sending and can read its 413 instead of a reset connection.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number(req.headers['content-length']) > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (over) {
        chunks.length = 0;
        if (size > DRAIN_LIMIT) req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => (over ? reject(tooLarge(limit)) : resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new ApiProblem(400, 'The request body ended early'));
    });
  });
}

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw new ApiProblem(400, 'A JSON request body is required');
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    // V8 quotes a snippet of the input in its message; that snippet may be card data, so keep only the reason.
    const reason = (error as Error).message.split(/, "|: "/)[0];
    throw new ApiProblem(400, `The request body is not valid JSON (${reason})`);
  }
}
