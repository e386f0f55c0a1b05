import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { purgeEndedShopperRows } from './session-repository.ts';

/** How often each process purges (wall clock). */
const SHOPPER_PURGE_EVERY_MS = 3_600_000;

/**
 * Deletes the space's sessions ended, and sign-in requests expired, more than a day ago (by the
 * service clock, as their expiry is): they sign nobody in. Every `everyMs` in this process, as the
 * back office's purge (src/staff/purge.ts): idempotent, so any process may run it, and one a
 * stopped process missed is done by the next. A timer and not a durable job for the back office's
 * reason (docs/jobs-and-clock.md#periodic-work-that-is-not-a-job). Answers the function that stops it.
 */
export function startShopperSpacePurge(db: Database, clock: Clock, log: Pick<Logger, 'info' | 'warn'>, everyMs = SHOPPER_PURGE_EVERY_MS): () => void {
  const timer = setInterval(() => {
    purgeEndedShopperRows(db, clock.now()).then(
      (n) => {
        if (n > 0) log.info({ rows: n }, "shopper's space: ended sessions and sign-in requests deleted");
      },
      (err: unknown) => log.warn({ err }, "shopper's space: could not purge ended sessions (tried again at the next run)"),
    );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
