import type { Database } from '../db/database.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Clock } from '../domain/clock.ts';
import type { Mailer } from '../messaging/mailer.ts';
import type { AddressPolicy } from '../outbound/addresses.ts';

export interface DeliveryLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Where attempt outcomes and latencies are counted (src/observability/metrics.ts). */
export interface DeliveryMetricsSink {
  observeDeliveryAttempt(kind: string, outcome: string, seconds: number): void;
}

export interface DeliveryWorkerOptions {
  /** Deadline for the answer's status line (ms). 10 s by default (docs/webhooks.md#delivery-policy). */
  timeoutMs?: number;
  /** How long a claim protects a delivery being sent (wall-clock ms). Default: two timeouts + 5 s (claimed ahead, a delivery may wait for one attempt first). */
  leaseMs?: number;
  /** Attempts in flight at once in this process. Default 32. */
  concurrency?: number;
  /**
   * Attempts in flight at once in this process to one destination (a merchant's webhook
   * endpoint, its notification URLs). Default 16: half the slots, so that an endpoint that
   * hangs, or one merchant's burst, always leaves the others room.
   */
  perDestination?: number;
  /** Safety poll (ms) for a missed notification. Default 10 s. */
  pollMs?: number;
  /** Events dispatched per transaction. Default 200. */
  dispatchBatch?: number;
  /** Jitter source in [0, 1) (tests). */
  random?: () => number;
  /** The wall clock of leases and `webhook-timestamp` (tests). */
  wallNow?: () => Date;
}

export interface DeliveryWorkerDeps {
  db: Database;
  box: SecretBox;
  /** The service clock: what is due, and when retries fall due. */
  clock: Clock;
  policy: AddressPolicy;
  mailer: Mailer | undefined;
  metrics?: DeliveryMetricsSink;
  log: DeliveryLog;
}
