import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestMetrics } from './request-metrics.ts';

/** What the delivery queue gauges read at scrape time (src/delivery/delivery-queue-repository.ts `queueStats`). */
export type DeliveryQueueProbe = () => Promise<{ depth: number; oldestDueAgeSeconds: number }>;

/** Prometheus metrics of one process: its own registry, so tests can run several apps side by side. */
export class Metrics {
  readonly registry = new Registry();
  readonly #requests = new RequestMetrics(
    this.registry,
    {
      counter: { name: 'chipin_http_requests_total', help: 'HTTP requests answered, by method, route template and status code' },
      histogram: {
        name: 'chipin_http_request_duration_seconds',
        help: 'Time from request received to response sent, by method, route template and status code',
      },
    },
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );

  readonly deliveryAttempts = new Counter({
    name: 'chipin_delivery_attempts_total',
    help: 'Webhook and notification attempts, by kind and outcome (succeeded, retry_scheduled, gave_up, endpoint_gone, cancelled, interrupted)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly deliveryLatency = new Histogram({
    name: 'chipin_delivery_attempt_duration_seconds',
    help: 'Time from sending a webhook or notification to its answer (or timeout), by kind',
    labelNames: ['kind'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  // The read replica (docs/deployment.md#read-replicas): absent from /metrics without DATABASE_READ_URL.
  readonly readReplicaInUse = new Gauge({
    name: 'chipin_read_replica_in_use',
    help: "1 while the back office's reads go to the replica (DATABASE_READ_URL), 0 while they go to the primary (lag beyond DATABASE_READ_MAX_LAG_MS, replica unreachable, not checked lately)",
    registers: [],
  });
  readonly readReplicaLag = new Gauge({
    name: 'chipin_read_replica_lag_seconds',
    help: "The replica's staleness at the last check: every commit older than this is replayed there (at least this when it is behind every sample kept; not set while unreachable)",
    registers: [],
  });
  readonly readQueries = new Counter({
    name: 'chipin_read_queries_total',
    help: "Queries of the back office's read handle, by where they ran (replica, primary)",
    labelNames: ['target'] as const,
    registers: [],
  });
  /** Adds the read-replica metrics to /metrics: called once when DATABASE_READ_URL is set. */
  registerReadReplica(): void {
    for (const m of [this.readReplicaInUse, this.readReplicaLag, this.readQueries]) this.registry.registerMetric(m);
  }
  #deliveryQueue: DeliveryQueueProbe | undefined;
  #deliverySnapshot: { at: number; value: Promise<{ depth: number; oldestDueAgeSeconds: number } | undefined> } | undefined;
  readonly deliveryQueueDepth = new Gauge({
    name: 'chipin_delivery_queue_depth',
    help: 'Deliveries waiting to be sent (pending: due now or scheduled for a retry), all processes together',
    registers: [this.registry],
    collect: async () => {
      const s = await this.#deliveryStats();
      if (s) this.deliveryQueueDepth.set(s.depth);
    },
  });
  readonly deliveryOldestDue = new Gauge({
    name: 'chipin_delivery_oldest_due_age_seconds',
    help: 'How long the oldest due delivery has been waiting to be sent (0 when none is due)',
    registers: [this.registry],
    collect: async () => {
      const s = await this.#deliveryStats();
      if (s) this.deliveryOldestDue.set(s.oldestDueAgeSeconds);
    },
  });

  #jobLag: (() => Promise<number>) | undefined;
  readonly jobOldestDue = new Gauge({
    name: 'chipin_job_oldest_due_age_seconds',
    help: 'How long the oldest due job (deadline, installment, retry, reconciliation) has waited unclaimed by any process (0 when none waits)',
    registers: [this.registry],
    collect: async () => {
      const probe = this.#jobLag;
      if (!probe) return;
      const age = await probe().catch(() => undefined);
      if (age !== undefined) this.jobOldestDue.set(age);
    },
  });

  constructor(opts: { processMetrics: boolean }) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'chipin_' });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.#requests.observe(method, route, status, seconds);
  }

  observeDeliveryAttempt(kind: string, outcome: string, seconds: number): void {
    this.deliveryAttempts.inc({ kind, outcome });
    if (outcome !== 'cancelled') this.deliveryLatency.observe({ kind }, seconds);
  }

  /** Where the queue gauges read from; set by the composition root. */
  setDeliveryQueueProbe(probe: DeliveryQueueProbe): void {
    this.#deliveryQueue = probe;
  }

  /** Where the job lag gauge reads from (src/jobs/scheduler.ts `oldestDueAgeSeconds`); set by the composition root. */
  setJobLagProbe(probe: () => Promise<number>): void {
    this.#jobLag = probe;
  }

  /** One query serves both gauges of a scrape. */
  #deliveryStats(): Promise<{ depth: number; oldestDueAgeSeconds: number } | undefined> {
    const probe = this.#deliveryQueue;
    if (!probe) return Promise.resolve(undefined);
    const now = Date.now();
    if (!this.#deliverySnapshot || now - this.#deliverySnapshot.at > 500) {
      this.#deliverySnapshot = { at: now, value: probe().catch(() => undefined) };
    }
    return this.#deliverySnapshot.value;
  }
}
