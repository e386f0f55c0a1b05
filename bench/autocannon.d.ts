// Minimal typings for the part of autocannon's programmatic API the benchmark uses
// (the package ships no types and @types/autocannon is not a dependency).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    duration?: number;
    pipelining?: number;
    timeout?: number;
    title?: string;
    /** Requests each connection sends in turn, cycling (instead of one url/method/body). */
    requests?: {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      /** Called as each request is sent; what it returns is sent (e.g. a header that changes). */
      setupRequest?: (req: { headers?: Record<string, string> }) => { headers?: Record<string, string> };
    }[];
    /** Requests per second in all, across connections (a steady load). */
    overallRate?: number;
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    [k: string]: number;
  }

  interface Result {
    url: string;
    connections: number;
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '1xx': number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram & { totalCount: number };
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(opts: Options): Instance;
  export default autocannon;
  export type { Options, Result, Instance };
}
