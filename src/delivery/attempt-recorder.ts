import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { Sent } from './attempt-channels.ts';
import { retryAfterMs, retryDelay } from './policy.ts';
import { isPlainSuccess, recordAttempt, type AttemptRecord, type ClaimedDelivery } from './delivery-queue-repository.ts';
import type { AttemptOutcome } from './delivery.ts';
import { SuccessRecorder } from './success-recorder.ts';
import type { DeliveryLog, DeliveryMetricsSink } from './worker-deps.ts';

/** Records what an attempt came to, and decides what follows: done, retried (when), or given up. */
export class AttemptRecorder {
  readonly #deps: { db: Database; clock: Clock; metrics?: DeliveryMetricsSink; log: DeliveryLog };
  readonly #successes: SuccessRecorder;
  readonly #random: () => number;
  readonly #wallNow: () => Date;

  constructor(deps: { db: Database; clock: Clock; metrics?: DeliveryMetricsSink; log: DeliveryLog }, random: () => number, wallNow: () => Date) {
    this.#deps = deps;
    this.#successes = new SuccessRecorder(deps.db);
    this.#random = random;
    this.#wallNow = wallNow;
  }

  /** Records an attempt's outcome and what follows from it. Never rejects. */
  async record(d: ClaimedDelivery, url: string, startedAt: Date, sent: Sent, context: object): Promise<void> {
    const { log, metrics } = this.#deps;
    try {
      const now = this.#deps.clock.now();
      const { outcome, nextAttemptAt } = this.#decide(d, sent, now);
      const a: AttemptRecord = {
        url,
        startedAt,
        durationMs: sent.durationMs,
        ...(sent.statusCode === undefined ? {} : { statusCode: sent.statusCode }),
        ...(sent.excerpt === undefined ? {} : { excerpt: sent.excerpt }),
        ...(sent.error === undefined ? {} : { error: sent.error }),
        outcome,
        ...(nextAttemptAt ? { nextAttemptAt } : {}),
        now,
        ...(sent.mail ? { mail: sent.mail } : {}),
      };
      // Successes (the bulk of a burst) are written in groups; the rest one by one.
      if (isPlainSuccess(a)) await this.#successes.record({ d, a });
      else await recordAttempt(this.#deps.db, d, a);
      metrics?.observeDeliveryAttempt(d.kind, outcome, sent.durationMs / 1000);
      const fields = { ...context, attempt: d.attempts + 1, status_code: sent.statusCode, ms: sent.durationMs, outcome };
      if (outcome === 'succeeded') log.debug(fields, 'delivery sent');
      else if (outcome === 'retry_scheduled') log.info({ ...fields, error: sent.error, next_attempt_at: nextAttemptAt?.toISOString() }, 'delivery attempt failed: will retry');
      else if (outcome !== 'interrupted') log.warn({ ...fields, error: sent.error }, 'delivery given up');
    } catch (err) {
      // Database trouble: the lease runs out and the delivery is taken again.
      log.error({ ...context, err }, 'delivery attempt could not be recorded');
    }
  }

  #decide(d: ClaimedDelivery, sent: Sent, now: Date): { outcome: AttemptOutcome; nextAttemptAt?: Date } {
    if (sent.interrupted) return { outcome: 'interrupted' };
    if (sent.delivered) return { outcome: 'succeeded' };
    if (sent.statusCode === 410) return { outcome: 'endpoint_gone' };
    const failures = d.failures + 1;
    const scheduled = retryDelay(failures, this.#random);
    if (scheduled === undefined) return { outcome: 'gave_up' };
    const asked = sent.statusCode === undefined ? undefined : retryAfterMs(sent.retryAfter, this.#wallNow().getTime());
    return { outcome: 'retry_scheduled', nextAttemptAt: new Date(now.getTime() + (asked ?? scheduled)) };
  }
}
