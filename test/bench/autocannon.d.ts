/** The part of autocannon 9's programmatic API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface RequestData {
      method: string;
      path: string;
      headers: Record<string, string>;
      body?: string | Buffer;
    }

    interface Request {
      /** Called before every request; returns the request to send. */
      setupRequest?: (request: RequestData, context: Record<string, unknown>) => RequestData;
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
    }

    interface Options {
      /** Several: client i connects to url[i mod n]. */
      url: string | string[];
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Seconds to wait for a response. */
      timeout?: number;
      headers?: Record<string, string>;
      requests?: Request[];
    }

    interface Histogram {
      average: number;
      p50: number;
      p99: number;
      total: number;
    }

    interface Result {
      requests: Histogram;
      latency: Histogram;
      /** Seconds. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      /** `responseTime` in milliseconds, with sub-millisecond precision. */
      on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
      on(event: string, listener: (...args: any[]) => void): this;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
