import type { DisputeKind, DisputeStatus, NotifiedDispute } from '../connector.ts';
import { toMinor } from './mapping.ts';

/**
 * Braintree's dispute webhooks (developer.paypal.com/braintree/docs/reference/general/webhooks/dispute,
 * and the Dispute object of developer.paypal.com/braintree/docs/reference/response/dispute;
 * docs/money-operations.md#disputes): kinds `dispute_opened`, `dispute_disputed`,
 * `dispute_under_review`, `dispute_won`, `dispute_lost`, `dispute_accepted`, `dispute_expired`,
 * `dispute_auto_accepted`, whose parsed notification carries the `dispute` (the SDK's reading of
 * `<subject><dispute>`): `id`, `kind` (chargeback, retrieval, pre_arbitration), `status`, `reason`,
 * `amountDisputed` (decimal), `currencyIsoCode`, `replyByDate` (YYYY-MM-DD) and its `transaction.id`.
 *
 * | status | ours |
 * |---|---|
 * | `open` | evidence needed |
 * | `disputed` (evidence submitted), `under_review` | opened |
 * | `won` | won |
 * | `lost`, `accepted`, `auto_accepted`, `expired` (no answer before the reply-by date) | lost |
 */
const STATUS: Readonly<Record<string, DisputeStatus>> = {
  open: 'evidence_needed',
  disputed: 'opened',
  under_review: 'opened',
  won: 'won',
  lost: 'lost',
  accepted: 'lost',
  auto_accepted: 'lost',
  expired: 'lost',
};

const KIND: Readonly<Record<string, DisputeKind>> = { chargeback: 'chargeback', pre_arbitration: 'chargeback', retrieval: 'retrieval' };

/** The dispute a parsed notification reports, or undefined when it is not a dispute notification. */
export function readDisputeNotification(n: { kind?: unknown; dispute?: unknown }): NotifiedDispute | undefined | 'malformed' {
  if (typeof n.kind !== 'string' || !n.kind.startsWith('dispute_')) return undefined;
  const d = n.dispute as Record<string, unknown> | undefined;
  const tx = d?.transaction as { id?: unknown } | undefined;
  const status = typeof d?.status === 'string' ? STATUS[d.status] : undefined;
  const kind = typeof d?.kind === 'string' ? KIND[d.kind] : undefined;
  const currency = typeof d?.currencyIsoCode === 'string' ? d.currencyIsoCode : undefined;
  const amount = currency ? toMinor(d?.amountDisputed ?? d?.amount, currency) : undefined;
  if (!d || typeof d.id !== 'string' || typeof tx?.id !== 'string' || !status || !kind || !currency || amount === undefined) return 'malformed';
  const dispute: NotifiedDispute = {
    pspDisputeId: d.id,
    transactionId: tx.id,
    kind,
    status,
    reason: typeof d.reason === 'string' ? d.reason : null,
    amountCents: amount,
    currency,
  };
  // A reply-by date is a day: the evidence is due by its end (UTC).
  if (typeof d.replyByDate === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d.replyByDate)) dispute.evidenceDueAt = new Date(`${d.replyByDate}T23:59:59Z`);
  return dispute;
}
