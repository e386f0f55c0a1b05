import type { Logger } from 'pino';
import { purgeSpentBudgets } from '../auth/throttle-repository.ts';
import { purgeFinishedOperations } from '../psp/psp-operation-repository.ts';
import { purgeExpiredIdempotencyKeys } from '../idempotency/idempotency-repository.ts';
import type { Database, Sql } from '../db/database.ts';
import { purgeEndedInvitations } from './invitation-repository.ts';
import { purgeEndedSessions } from './session-repository.ts';
import { purgeOldRiskDecisions, riskDecisionRetentionCutoff } from '../risk/risk-decision-repository.ts';
import { DEFAULT_RISK_DECISION_RETENTION_DAYS } from '../config.ts';
import { maintainPartitions } from '../db/partitions.ts';

/** How often each process purges (wall clock). */
const DASHBOARD_PURGE_EVERY_MS = 3_600_000;

/**
 * Sessions ended (expired or signed out) more than a day ago sign nobody in and only weigh on
 * the token index: deleted. Invitations that ended (accepted, revoked, else expired) more than 30
 * days ago go too (their outcome is in the audit log). Both by the database's wall clock, as their expiry is. Answers the counts.
 */
export async function purgeDashboardRows(sql: Sql): Promise<{ sessions: number; invitations: number }> {
  const sessions = await purgeEndedSessions(sql);
  const invitations = await purgeEndedInvitations(sql);
  return { sessions, invitations };
}

/**
 * Runs the purge (and those of ended credential failure budgets, src/auth/attempt-budgets.ts, of
 * finished PSP operations past their replay window, src/psp/psp-operation-repository.ts, of
 * expired Idempotency-Keys, src/idempotency/idempotency-repository.ts, and of
 * risk decisions older than `riskDecisionRetentionDays` by the wall clock, docs/risk.md#retention)
 * every `everyMs` of wall-clock time in this process (an unref'd timer; the first
 * run one interval after start). Not a durable job (docs/jobs-and-clock.md#periodic-work-that-is-not-a-job):
 * these rows expire by the wall clock, and a job runs by the service clock, so every sandbox clock
 * move would run the purge and count it in the `ran` the merchant reads; a purge missed by a
 * stopped process is done by the next run of any process (the deletes are idempotent). Answers
 * the function that stops it.
 */
export function startDashboardPurge(
  db: Database,
  log: Pick<Logger, 'info' | 'warn'>,
  everyMs = DASHBOARD_PURGE_EVERY_MS,
  riskDecisionRetentionDays = DEFAULT_RISK_DECISION_RETENTION_DAYS,
): () => void {
  const timer = setInterval(() => {
    purgeDashboardRows(db).then(
      (n) => {
        if (n.sessions + n.invitations > 0) log.info(n, 'back office: ended sessions and old invitations deleted');
      },
      (err: unknown) => log.warn({ err }, 'back office: could not purge ended sessions (tried again at the next run)'),
    );
    // The credential budgets' rows of windows long ended, by the same clock and with the same idempotence.
    purgeSpentBudgets(db).catch((err: unknown) => log.warn({ err }, 'could not purge ended failure budgets (tried again at the next run)'));
    // Finished PSP operations past their replay window (src/psp/psp-operation-repository.ts).
    purgeFinishedOperations(db).then(
      (n) => {
        if (n > 0) log.info({ psp_operations: n }, 'finished PSP operations past their replay window deleted');
      },
      (err: unknown) => log.warn({ err }, 'could not purge finished PSP operations (tried again at the next run)'),
    );
    // Idempotency-Keys past their 24 hours (docs/api-conventions.md#idempotency-key), by batches.
    purgeExpiredIdempotencyKeys(db).then(
      (n) => {
        if (n > 0) log.info({ idempotency_keys: n }, 'expired idempotency keys deleted');
      },
      (err: unknown) => log.warn({ err }, 'could not purge expired idempotency keys (tried again at the next run)'),
    );
    // The partitioned tables' months ahead, and risk decisions past their retention
    // (docs/risk.md#retention): whole months by DROP where the table is partitioned
    // (docs/partitioning.md), then what is left by batches of DELETE (every row on PGlite).
    const now = new Date();
    maintainPartitions(db, [{ table: 'risk_decisions', before: riskDecisionRetentionCutoff(riskDecisionRetentionDays, now) }])
      .then(
        (m) => {
          if (m.dropped.length > 0) log.info({ partitions: m.dropped }, 'partitions past their retention dropped');
        },
        (err: unknown) => log.warn({ err }, 'could not maintain the partitions (tried again at the next run)'),
      )
      .then(() => purgeOldRiskDecisions(db, riskDecisionRetentionDays, now))
      .then(
        (n) => {
          if (n > 0) log.info({ risk_decisions: n }, 'risk decisions past their retention deleted');
        },
        (err: unknown) => log.warn({ err }, 'could not purge old risk decisions (tried again at the next run)'),
      );
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
