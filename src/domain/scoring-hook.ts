/**
 * The external scoring hook's pure rules (docs/risk.md#the-external-scoring-hook): its settings'
 * bounds, and what an answer of the hook must be to count. The call itself is
 * src/risk/scoring-hook.ts; the signature of both bodies is src/domain/timestamped-signature.ts.
 */

/**
 * The request and answer header: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. The request's MAC covers
 * `<t>.<body>`; the answer's covers `<t>.<decision_id>.<request v1>.<answer body>` ({@link hookAnswerSigned}).
 */
export const SCORING_HOOK_SIGNATURE_HEADER = 'chipin-signature';

/**
 * What the answer's signature covers after its timestamp (docs/risk.md#the-signature): the
 * decision it answers (the request's `decision_id`), the request's own signature (the `v1` of the
 * request's header, 64 hex digits) and the answer's raw body, joined by dots. An answer is thereby
 * bound to the one request it answers: the signed accept of one payment, sent again for another
 * within its 5 minutes, does not verify, and the hook's default decision applies.
 */
export function hookAnswerSigned(decisionId: string, requestSignature: string, rawAnswer: string): string {
  return `${decisionId}.${requestSignature}.${rawAnswer}`;
}

export const SCORING_HOOK_TIMEOUT = { min: 100, max: 5_000, default: 1_500 } as const;

export type HookDecision = 'accept' | 'refuse';
export const HOOK_DECISIONS: readonly HookDecision[] = ['accept', 'refuse'];

/** What the hook may say besides its decision: a reason code of its own, a score. */
const HOOK_REASON_PATTERN = /^[A-Z0-9_]{1,64}$/;

/** The largest answer read: the hook's JSON is a few dozen bytes. */
export const HOOK_ANSWER_MAX_BYTES = 16_384;

/** A hook's answer, once its signature held. */
export interface HookAnswer {
  decision: HookDecision;
  reason?: string;
  score?: number;
}

/**
 * The answer's body as the hook must send it: a JSON object with `decision` `accept` or `refuse`,
 * optionally `reason` (1 to 64 of A–Z, 0–9, `_`) and `score` (an integer 0..100). Other keys are
 * ignored (a hook may send its own). Anything else is undefined: the answer is malformed.
 */
export function parseHookAnswer(rawBody: string): HookAnswer | undefined {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const { decision, reason, score } = json as Record<string, unknown>;
  if (decision !== 'accept' && decision !== 'refuse') return undefined;
  const answer: HookAnswer = { decision };
  if (reason !== undefined) {
    if (typeof reason !== 'string' || !HOOK_REASON_PATTERN.test(reason)) return undefined;
    answer.reason = reason;
  }
  if (score !== undefined) {
    if (typeof score !== 'number' || !Number.isInteger(score) || score < 0 || score > 100) return undefined;
    answer.score = score;
  }
  return answer;
}
