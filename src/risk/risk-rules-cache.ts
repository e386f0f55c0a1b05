import type { Sql } from '../db/database.ts';
import { loadRiskRules, type StoredRiskRules } from './risk-rules-repository.ts';

/**
 * Each process keeps an account's risk rules for a few seconds, as it keeps its offers
 * (docs/architecture.md#scale-and-tenancy): the eligibility call reads them on every request, and
 * a short-lived copy keeps that call free of a query. An edit in this process drops the copy at
 * once; other processes see it when theirs lapses.
 */
export class RiskRulesCache {
  readonly #entries = new Map<string, { rules: Promise<StoredRiskRules>; expiresAt: number }>();

  constructor(
    private readonly sql: Sql,
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  rules(accountId: string): Promise<StoredRiskRules> {
    const hit = this.#entries.get(accountId);
    if (hit && hit.expiresAt > this.now()) return hit.rules;
    const rules = loadRiskRules(this.sql, accountId);
    this.#entries.set(accountId, { rules, expiresAt: this.now() + this.ttlMs });
    rules.catch(() => this.#entries.delete(accountId)); // never cache a failure
    if (this.#entries.size > 10_000) this.#entries.delete(this.#entries.keys().next().value!);
    return rules;
  }

  forget(accountId: string): void {
    this.#entries.delete(accountId);
  }
}
