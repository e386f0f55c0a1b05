import { createHash } from 'node:crypto';
import type { Sql } from '../db/database.ts';
import { addAttempt, settleAttempts, throttleRows, type ThrottleRow } from './throttle-repository.ts';

/**
 * Failure budgets of credential checks (docs/security.md, "Throttles"), kept in the
 * database so that every process of a deployment on one PostgreSQL shares them. Two ways to
 * count, both atomic (one statement), so that guesses sent at once gain nothing:
 *
 * - {@link AttemptBudgets.reserve}, for dashboard passwords (chosen by people, checked with an
 *   scrypt): an attempt reserves its place in each budget BEFORE the password is compared — one
 *   `INSERT … ON CONFLICT DO UPDATE … RETURNING` — and settles it after: a failure stays counted, a
 *   success is given back. A check in flight counts against the budget until it settles, so of 30
 *   guesses sent at once at most 5 reach the hash, and the right password after them is refused.
 *   Legitimate requests of one user sent at once share that bound: beyond it they are told to
 *   retry in a second.
 * - {@link AttemptBudgets.fail} and {@link AttemptBudgets.wait}, for API secrets (256 random bits,
 *   checked with one SHA-256): the secret is compared first; a failure is then counted and the
 *   answer taken from the count it returns, a success answered only if the budget is not spent.
 *   Guesses sent at once are answered as if sent one by one — at most 5 wrong answers, and a
 *   right one only while the budget lasts —, and a merchant's integration may ask for tokens with
 *   as many connections as it likes (reserving would refuse them beyond 5 in flight).
 */
export interface Budget {
  /** Names the budget in the table; each scope counts apart. */
  readonly scope: string;
  /** Failures (and checks in flight) allowed per window. */
  readonly limit: number;
  readonly windowMs: number;
}

/** The budgets of this service: per user or key, and per client address, per minute. */
export const BUDGETS = {
  /** Dashboard credentials (Basic on the back office and the sandbox inbox, the sign-in form), per e-mail. */
  dashboardUser: { scope: 'dashboard_user', limit: 5, windowMs: 60_000 },
  /** The same routes and invitation links, per client address. */
  dashboardAddress: { scope: 'dashboard_address', limit: 20, windowMs: 60_000 },
  /** `POST /api/token`, per API key. */
  tokenKey: { scope: 'token_key', limit: 5, windowMs: 60_000 },
  /** `POST /api/token`, per client address. */
  tokenAddress: { scope: 'token_address', limit: 20, windowMs: 60_000 },
  /** Sign-in links and codes of the shopper's space sent to one e-mail or phone number, per 15 minutes (no mail or SMS bombing). */
  shopperIdentity: { scope: 'shopper_identity', limit: 5, windowMs: 15 * 60_000 },
  /** The shopper's space, per client address: sign-in requests, links that open nothing, wrong codes. */
  shopperAddress: { scope: 'shopper_address', limit: 30, windowMs: 60_000 },
} as const satisfies Record<string, Budget>;

/** One budget applied to one subject (an e-mail, an address, an API key). */
export interface Claim {
  budget: Budget;
  subject: string;
}

/**
 * The auth_throttle rows of some claims' budgets, as the table names them: the (scope, subject
 * digest) pairs, one per budget and subject (in the order of {@link ordered}), and the budget each
 * pair belongs to.
 */
export interface BudgetRows {
  readonly scopes: readonly string[];
  readonly subjects: readonly string[];
  readonly budgets: readonly Budget[];
}

/** A reserved attempt: settle it once the credentials were compared. */
interface Reservation {
  ok: true;
  /** The credentials were right: the attempt is given back to every budget. */
  succeeded(): Promise<void>;
  /** They were wrong: the attempt stays counted as a failure in every budget. */
  failed(): Promise<void>;
}

export type Reserved = Reservation | { ok: false; retryAfter: number };

/** What is stored for a subject: a digest, so that nothing typed into a credential field is kept as typed. */
function digest(scope: string, subject: string): string {
  return createHash('sha256').update(`${scope}\u0000${subject}`, 'utf8').digest('base64url');
}

/** Rows in one order (scope, then subject, bytewise as `COLLATE "C"`): statements that lock several lock them alike, so they never deadlock. */
function ordered(claims: readonly Claim[]): { budget: Budget; key: string }[] {
  const seen = new Map<string, { budget: Budget; key: string }>();
  for (const c of claims) {
    const key = digest(c.budget.scope, c.subject);
    seen.set(`${c.budget.scope}\u0000${key}`, { budget: c.budget, key });
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

export class AttemptBudgets {
  constructor(
    private readonly sql: Sql,
    /** The wall clock of the windows (tests move it). */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Reserves one attempt in each budget at once. Refused when any of them is spent — by failures
   * (retry when its window ends) or by checks in flight (retry in a second) —, and then nothing
   * stays reserved.
   */
  async reserve(claims: readonly Claim[]): Promise<Reserved> {
    const rows = ordered(claims);
    if (rows.length === 0) throw new RangeError('reserve needs at least one budget');
    const now = this.now();
    const after = await this.#count(rows, now, { failures: 0, pending: 1 });
    let retryAfter = 0;
    for (const r of rows) {
      const row = after.find((a) => a.scope === r.budget.scope && a.subject === r.key)!;
      if (row.failures >= r.budget.limit) retryAfter = Math.max(retryAfter, Math.ceil((new Date(row.resets_at).getTime() - now) / 1000));
      else if (row.failures + row.pending > r.budget.limit) retryAfter = Math.max(retryAfter, 1);
    }
    if (retryAfter > 0) {
      await this.#settle(rows, false);
      return { ok: false, retryAfter: Math.max(1, retryAfter) };
    }
    let settled = false;
    const settle = async (failed: boolean) => {
      if (settled) return;
      settled = true;
      await this.#settle(rows, failed);
    };
    return { ok: true, succeeded: () => settle(false), failed: () => settle(true) };
  }

  /**
   * Counts one failure in each budget (a wrong secret, a request breaking the text rule or
   * carrying no credentials, a link that opens nothing), in one statement. Answers the wait when
   * this failure is beyond a budget — the caller then answers 429, not the failure's own answer,
   * so a guess past the budget learns nothing —, else 0.
   */
  async fail(claims: readonly Claim[]): Promise<number> {
    const rows = ordered(claims);
    if (rows.length === 0) throw new RangeError('fail needs at least one budget');
    const now = this.now();
    const after = await this.#count(rows, now, { failures: 1, pending: 0 });
    let wait = 0;
    for (const r of rows) {
      const row = after.find((a) => a.scope === r.budget.scope && a.subject === r.key)!;
      if (row.failures > r.budget.limit) wait = Math.max(wait, Math.max(1, Math.ceil((new Date(row.resets_at).getTime() - now) / 1000)));
    }
    return wait;
  }

  /** Seconds before these subjects may try again (the longest wait of their budgets), 0 when they may: one read. */
  async wait(claims: readonly Claim[]): Promise<number> {
    const rows = this.rowsOf(claims);
    if (rows.scopes.length === 0) return 0;
    return this.waitOf(rows, await throttleRows(this.sql, rows.scopes, rows.subjects));
  }

  /**
   * The stored rows of these claims' budgets, for a statement that reads them beside rows of its
   * own (the token route reads them in its API key's lookup, one round trip instead of two);
   * {@link waitOf} then answers from what it read, as {@link wait} would have.
   */
  rowsOf(claims: readonly Claim[]): BudgetRows {
    const rows = ordered(claims);
    return { scopes: rows.map((r) => r.budget.scope), subjects: rows.map((r) => r.key), budgets: rows.map((r) => r.budget) };
  }

  /** Seconds before the subjects of `rows` may try again, from their rows as read (`found`; a budget without a row has no failure), 0 when they may. */
  waitOf(rows: BudgetRows, found: readonly ThrottleRow[]): number {
    const now = this.now();
    let wait = 0;
    rows.budgets.forEach((budget, i) => {
      const row = found.find((f) => f.scope === rows.scopes[i] && f.subject === rows.subjects[i]);
      if (!row) return;
      const left = new Date(row.resets_at).getTime() - now;
      if (left > 0 && row.failures >= budget.limit) wait = Math.max(wait, Math.ceil(left / 1000));
    });
    return wait;
  }

  /**
   * Adds one attempt to each row, in one statement (`INSERT … ON CONFLICT DO UPDATE … RETURNING`),
   * and answers the rows as they are after it: a failure (`failures: 1`) or a check in flight
   * (`pending: 1`). A window that ended starts again from this attempt: its failures and any
   * check left in flight by a process that died are forgotten with it.
   */
  async #count(rows: readonly { budget: Budget; key: string }[], now: number, add: { failures: 0 | 1; pending: 0 | 1 }): Promise<ThrottleRow[]> {
    return addAttempt(
      this.sql,
      rows.map((r) => ({ scope: r.budget.scope, subject: r.key, resetsAt: new Date(now + r.budget.windowMs) })),
      new Date(now),
      add,
    );
  }

  /**
   * Ends the checks in flight: each row's `pending` goes down, and `failures` up when they
   * failed. Rows are locked in one order first (see {@link ordered}). A window that ended
   * meanwhile keeps the failure: counting it in the next one errs on the safe side.
   */
  async #settle(rows: readonly { budget: Budget; key: string }[], failed: boolean): Promise<void> {
    await settleAttempts(
      this.sql,
      rows.map((r) => r.budget.scope),
      rows.map((r) => r.key),
      failed,
    );
  }
}
