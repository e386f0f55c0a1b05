import type { Sql } from '../db/database.ts';

/** A risk decision as stored (migration 031, docs/risk.md#decisions-as-records). */
export interface RiskDecisionRow {
  id: string;
  accountId: string;
  purchaseId: string;
  offerId: string;
  paymentId: string | null;
  pledgeId: string | null;
  purpose: 'leader' | 'pledge';
  outcome: 'accepted' | 'refused';
  amountCents: number;
  creditCents: number;
  reasons: { code: string; message: string }[];
  score: unknown;
  /** What was decided on: the rules in effect, the card (BIN, last four, fingerprint, funding, country, expiry), the shopper's keys, the history's figures. */
  inputs: Record<string, unknown>;
  /** The external scoring hook's verdict, when one was asked. */
  hook: Record<string, unknown> | null;
  cardFingerprint: string | null;
  latencyMs: number;
  createdAt: Date;
}

export async function insertRiskDecision(sql: Sql, d: RiskDecisionRow): Promise<void> {
  await sql.query(
    `INSERT INTO risk_decisions (id, account_id, purchase_id, offer_id, payment_id, pledge_id, purpose, outcome, amount_cents, credit_cents,
                                 reasons, score, inputs, hook, card_fingerprint, latency_ms, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [
      d.id,
      d.accountId,
      d.purchaseId,
      d.offerId,
      d.paymentId,
      d.pledgeId,
      d.purpose,
      d.outcome,
      d.amountCents,
      d.creditCents,
      JSON.stringify(d.reasons),
      JSON.stringify(d.score),
      JSON.stringify(d.inputs),
      d.hook === null ? null : JSON.stringify(d.hook),
      d.cardFingerprint,
      d.latencyMs,
      d.createdAt,
    ],
  );
}

/** An accepted decision the external scoring hook then refused (or answered nothing, and the account's default refuses). */
export async function refuseAfterHook(
  sql: Sql,
  accountId: string,
  id: string,
  reasons: RiskDecisionRow['reasons'],
  hook: Record<string, unknown>,
  latencyMs: number,
): Promise<void> {
  await sql.query(`UPDATE risk_decisions SET outcome = 'refused', reasons = $3, hook = $4, latency_ms = $5 WHERE account_id = $1 AND id = $2`, [
    accountId,
    id,
    JSON.stringify(reasons),
    JSON.stringify(hook),
    latencyMs,
  ]);
}

/** Records the hook's verdict on a decision it did not change. */
export async function setDecisionHook(sql: Sql, accountId: string, id: string, hook: Record<string, unknown>, latencyMs: number): Promise<void> {
  await sql.query('UPDATE risk_decisions SET hook = $3, latency_ms = $4 WHERE account_id = $1 AND id = $2', [accountId, id, JSON.stringify(hook), latencyMs]);
}

const COLUMNS = `id, account_id, purchase_id, offer_id, payment_id, pledge_id, purpose, outcome, amount_cents, credit_cents, reasons, score, inputs, hook,
                 card_fingerprint, latency_ms, created_at`;

interface Raw {
  id: string;
  account_id: string;
  purchase_id: string;
  offer_id: string;
  payment_id: string | null;
  pledge_id: string | null;
  purpose: 'leader' | 'pledge';
  outcome: 'accepted' | 'refused';
  amount_cents: string | number;
  credit_cents: string | number;
  reasons: RiskDecisionRow['reasons'] | string;
  score: unknown;
  inputs: Record<string, unknown> | string;
  hook: Record<string, unknown> | string | null;
  card_fingerprint: string | null;
  latency_ms: number;
  created_at: Date | string;
}

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

function toRow(r: Raw): RiskDecisionRow {
  return {
    id: r.id,
    accountId: r.account_id,
    purchaseId: r.purchase_id,
    offerId: r.offer_id,
    paymentId: r.payment_id,
    pledgeId: r.pledge_id,
    purpose: r.purpose,
    outcome: r.outcome,
    amountCents: Number(r.amount_cents),
    creditCents: Number(r.credit_cents),
    reasons: json(r.reasons),
    score: json(r.score as unknown),
    inputs: json(r.inputs),
    hook: r.hook === null ? null : json(r.hook),
    cardFingerprint: r.card_fingerprint,
    latencyMs: r.latency_ms,
    createdAt: new Date(r.created_at),
  };
}

/** A purchase's decisions, oldest first (its back-office timeline). */
export async function purchaseDecisions(sql: Sql, accountId: string, purchaseId: string): Promise<RiskDecisionRow[]> {
  const { rows } = await sql.query<Raw>(`SELECT ${COLUMNS} FROM risk_decisions WHERE account_id = $1 AND purchase_id = $2 ORDER BY created_at, id`, [accountId, purchaseId]);
  return rows.map(toRow);
}

/** One page of an account's decisions in a period, by (created_at, id) after the cursor: the export. */
export async function decisionsPage(
  sql: Sql,
  accountId: string,
  range: { from: Date; to: Date },
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<RiskDecisionRow[]> {
  const { rows } = await sql.query<Raw>(
    `SELECT ${COLUMNS} FROM risk_decisions
      WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
        AND ($4::timestamptz IS NULL OR (created_at, id) > ($4::timestamptz, $5::uuid))
      ORDER BY created_at, id LIMIT $6`,
    [accountId, range.from, range.to, after?.createdAt ?? null, after?.id ?? null, limit],
    // Unprepared: the best plan depends on the period and the cursor (docs/performance.md#keyset-lists-run-unprepared).
    { prepare: false },
  );
  return rows.map(toRow);
}

/** Rows deleted per statement of the retention purge: each DELETE stays short, whatever the backlog. */
const RISK_DECISION_PURGE_BATCH = 1_000;
/** Batches per run at most (a million rows): a larger backlog is left to the next hourly run. */
const PURGE_MAX_BATCHES = 1_000;

/**
 * Deletes decisions created before `before` (docs/risk.md#retention), `batch` at a time, across
 * every account (an operator's retention, not an account's); found by `risk_decisions_created_idx`
 * (migration 034). Answers how many went.
 */
async function purgeRiskDecisions(sql: Sql, before: Date, batch: number): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(
    `WITH gone AS (DELETE FROM risk_decisions WHERE id IN (SELECT id FROM risk_decisions WHERE created_at < $1 LIMIT $2) RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [before, batch],
  );
  return rows[0]!.n;
}

/** The instant before which decisions are past their retention of `retentionDays` at `now` (docs/risk.md#retention). */
export function riskDecisionRetentionCutoff(retentionDays: number, now: Date): Date {
  return new Date(now.getTime() - retentionDays * 86_400_000);
}

/** The retention purge: every decision older than `retentionDays` before `now`, by batches until none is left. */
export async function purgeOldRiskDecisions(sql: Sql, retentionDays: number, now: Date, batch = RISK_DECISION_PURGE_BATCH): Promise<number> {
  const before = riskDecisionRetentionCutoff(retentionDays, now);
  let total = 0;
  for (let i = 0; i < PURGE_MAX_BATCHES; i++) {
    const n = await purgeRiskDecisions(sql, before, batch);
    total += n;
    if (n < batch) break;
  }
  return total;
}
