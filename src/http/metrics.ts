import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one process: its own registry, so tests can run several apps side by side. */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'chipin_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'chipin_http_request_duration_seconds',
    help: 'Time from request received to response sent, by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor(opts: { processMetrics: boolean }) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'chipin_' });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status_code: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }
}
