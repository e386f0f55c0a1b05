import type { Sql } from '../db/database.ts';
import { loadRiskRules, type StoredRiskRules } from './risk-rules-repository.ts';
import { findScoringHook, type StoredScoringHook } from './scoring-hook-repository.ts';

/**
 * Each process keeps an account's risk rules and its scoring hook for a few seconds, as it keeps
 * its offers (docs/architecture.md#scale-and-tenancy): the eligibility call and the payment-time
 * decision read them on every request, and a short-lived copy keeps both free of a query. An
 * edit in this process drops the copy at once; other processes see it when theirs lapses.
 */
export class RiskRulesCache {
  readonly #rules = new TtlMap<StoredRiskRules>();
  readonly #hooks = new TtlMap<StoredScoringHook | undefined>();

  constructor(
    private readonly sql: Sql,
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  rules(accountId: string): Promise<StoredRiskRules> {
    return this.#rules.get(accountId, this.now(), this.ttlMs, () => loadRiskRules(this.sql, accountId));
  }

  /** The account's scoring hook when it has one enabled (docs/risk.md#the-external-scoring-hook). */
  scoringHook(accountId: string): Promise<StoredScoringHook | undefined> {
    return this.#hooks.get(accountId, this.now(), this.ttlMs, async () => {
      const hook = await findScoringHook(this.sql, accountId);
      return hook?.enabled ? hook : undefined;
    });
  }

  forget(accountId: string): void {
    this.#rules.delete(accountId);
    this.#hooks.delete(accountId);
  }
}

/** Promises kept until they lapse, a failure never kept, at most 10,000 accounts. */
class TtlMap<T> {
  readonly #entries = new Map<string, { value: Promise<T>; expiresAt: number }>();

  get(key: string, now: number, ttlMs: number, load: () => Promise<T>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = load();
    this.#entries.set(key, { value, expiresAt: now + ttlMs });
    value.catch(() => this.#entries.delete(key));
    if (this.#entries.size > 10_000) this.#entries.delete(this.#entries.keys().next().value!);
    return value;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
