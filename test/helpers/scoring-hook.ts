import { hookAnswerSigned } from '../../src/domain/scoring-hook.ts';
import { signatureOf, signTimestamped } from '../../src/domain/timestamped-signature.ts';
import type { Answer, Received } from '../delivery/helpers.ts';

/**
 * A scoring hook's answer to the request `r` as docs/risk.md#the-signature has the hook sign it:
 * `body` (JSON, or a string sent as is) signed with `secret` at `at`, bound to the request's
 * `decision_id` and to its own signature. A request that is not Chipin's signed JSON gets an
 * answer bound to nothing, which Chipin refuses as it should.
 */
export function hookAnswer(secret: string, r: Received, body: unknown, at = new Date()): Answer {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const header = r.headers['chipin-signature'];
  let decisionId = '';
  try {
    decisionId = String((JSON.parse(r.body) as { decision_id?: unknown }).decision_id ?? '');
  } catch {
    // not Chipin's request
  }
  const signed = hookAnswerSigned(decisionId, signatureOf(typeof header === 'string' ? header : '') ?? '', raw);
  return { kind: 'status', code: 200, headers: { 'content-type': 'application/json', 'chipin-signature': signTimestamped(secret, signed, at) }, body: raw };
}
