import type { OfferType } from '../domain/offer-terms.ts';
import { performance } from 'node:perf_hooks';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Sql } from '../db/database.ts';
import { HOOK_ANSWER_MAX_BYTES, hookAnswerSigned, parseHookAnswer, SCORING_HOOK_SIGNATURE_HEADER, type HookDecision } from '../domain/scoring-hook.ts';
import { checkTimestamped, signatureOf, signTimestamped } from '../domain/timestamped-signature.ts';
import type { AddressPolicy } from '../outbound/addresses.ts';
import { sendRequest } from '../outbound/http-request.ts';
import { findScoringHook, type StoredScoringHook } from './scoring-hook-repository.ts';

/**
 * The external scoring hook (docs/risk.md#the-external-scoring-hook): the merchant's own fraud
 * provider, asked before a credit plan or a pot's pledge is charged. One signed POST through the
 * outbound client (the webhooks' address rule, no redirect followed, the hook's own timeout); its
 * answer, signed for this very request, or the hook's configured default decision with the fault named. Nothing here
 * throws for the hook's faults, and the secret appears in no error and no log.
 */

/** What the hook is sent: no full card number, ever (the BIN, the last 4 and the PSP's fingerprint). */
export interface ScoringHookRequest {
  decision_id: string;
  purchase_uid: string;
  merchant_uid: string;
  offer_type: OfferType;
  installments: number;
  amount_cents: number;
  currency: string;
  purpose: 'leader' | 'pledge';
  shopper: { email?: string; phone?: string; customer_id?: string; ip?: string };
  card: { bin: string; last4: string; brand: string; funding: string; country?: string; exp_month: number; exp_year: number; fingerprint: string };
  /** Chipin's own decision; `score` is null for a pledger (no score is computed for them: docs/risk.md#what-applies). */
  chipin: { eligible: boolean; reasons: string[]; score: number | null };
}

export type HookVerdict =
  | { source: 'hook'; outcome: HookDecision; reason?: string; score?: number; latencyMs: number }
  | { source: 'default'; outcome: HookDecision; error: 'timeout' | 'unreachable' | 'http_status' | 'bad_signature' | 'malformed'; latencyMs: number };

export interface ScoringHookDeps {
  db: Sql;
  box: SecretBox;
  /** The webhooks' address rule (`services.deliveries.policy`): the same hosts allowed, the same connection pool. */
  policy: AddressPolicy;
  /**
   * Real time, for the signature's `t` and the answer's freshness: not the service clock, which
   * the sandbox moves forward while the hook compares with its own clock. Default: the system's.
   */
  wallNow?: () => Date;
}

const USER_AGENT = 'Chipin-Scoring-Hook/1.0';

/**
 * Asks the account's hook about `request`: undefined when the account has no enabled hook (one
 * read by primary key), else the verdict. See {@link callScoringHook} for a hook already read.
 */
export async function askScoringHook(deps: ScoringHookDeps, accountId: string, request: ScoringHookRequest): Promise<HookVerdict | undefined> {
  const hook = await findScoringHook(deps.db, accountId);
  if (!hook || !hook.enabled) return undefined;
  return callScoringHook(deps, hook, request);
}

/** Calls a hook read already (a caller that reads it with other settings in one round trip). Never throws for the hook's faults. */
export async function callScoringHook(deps: Omit<ScoringHookDeps, 'db'>, hook: StoredScoringHook, request: ScoringHookRequest): Promise<HookVerdict> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const fallback = (error: Extract<HookVerdict, { source: 'default' }>['error']): HookVerdict => ({ source: 'default', outcome: hook.onError, error, latencyMs: latency() });
  const now = deps.wallNow ?? (() => new Date());
  // Opened here, used twice, dropped with this call: never logged, never in a verdict.
  const secret = deps.box.open(hook.secretEnc).reveal();
  // A BIN is 6 to 8 digits and last4 is 4: whatever a caller passes, no more of a card number leaves Chipin.
  const body = JSON.stringify({ ...request, card: { ...request.card, bin: request.card.bin.slice(0, 8), last4: request.card.last4.slice(-4) } });
  const signature = signTimestamped(secret, body, now());
  const attempt = await sendRequest(hook.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': USER_AGENT, [SCORING_HOOK_SIGNATURE_HEADER]: signature },
    body,
    policy: deps.policy,
    timeoutMs: hook.timeoutMs,
    read: { whole: HOOK_ANSWER_MAX_BYTES },
  });
  if (attempt.timedOut) return fallback('timeout');
  if (attempt.statusCode === undefined) return fallback('unreachable'); // refused address, connection error, an answer cut off or too large
  // A redirect is an answer like any non-2xx: never followed (src/outbound/http-request.ts).
  if (attempt.statusCode < 200 || attempt.statusCode > 299) return fallback('http_status');
  const raw = attempt.body?.toString('utf8') ?? '';
  const header = attempt.headers?.[SCORING_HOOK_SIGNATURE_HEADER];
  // The signature first: an unsigned body is not read at all. Missing, wrong or stale alike, and
  // one signed for another request (another decision, or this decision's request signed anew):
  // the answer's MAC covers this request's decision id and signature (docs/risk.md#the-signature).
  const bound = hookAnswerSigned(request.decision_id, signatureOf(signature) ?? '', raw);
  if (checkTimestamped(secret, typeof header === 'string' ? header : undefined, bound, now()) !== 'ok') return fallback('bad_signature');
  const answer = parseHookAnswer(raw);
  if (!answer) return fallback('malformed');
  return {
    source: 'hook',
    outcome: answer.decision,
    ...(answer.reason === undefined ? {} : { reason: answer.reason }),
    ...(answer.score === undefined ? {} : { score: answer.score }),
    latencyMs: latency(),
  };
}
