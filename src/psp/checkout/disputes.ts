import type { DisputeKind, DisputeStatus, NotifiedDispute } from '../connector.ts';

/**
 * Checkout.com's dispute webhooks (docs/money-operations.md#disputes; docs/psp/checkout.md lists
 * the sources: the webhook event types, "Disputes" group, and their examples, e.g.
 * `dispute_evidence_required`; the Disputes API's `Dispute` schema). Each is a workflow event
 * `{id, type, created_on, data}` signed as every Checkout.com webhook (`Cko-Signature`), whose
 * `data` is the dispute: `id` (`dsp_…`, the same through its stages), `payment_id`, `amount`
 * (minor units, in the processing currency), `currency`, `reason_code` (the scheme's),
 * `category`, `evidence_required_by`. Older examples leave out the amount: then the payment's
 * captured amount less its refunds is taken.
 *
 * | type | kind | status |
 * |---|---|---|
 * | `request_for_information_received` | retrieval | evidence needed |
 * | `dispute_received` (before Checkout.com knows whether action is possible) | chargeback | opened |
 * | `dispute_evidence_required` (the amount is debited) | chargeback | evidence needed |
 * | `dispute_evidence_submitted`, `dispute_evidence_acknowledged_by_scheme`, `dispute_arbitration_sent_to_scheme`, `dispute_arbitration_evidence_submitted` | chargeback | opened |
 * | `dispute_won`, `dispute_arbitration_won`, `dispute_canceled` (by the issuer: the amount credited back) | chargeback | won |
 * | `dispute_lost`, `dispute_arbitration_lost`, `dispute_accepted` (by the merchant), `dispute_expired` (no answer in time) | chargeback | lost |
 * | `dispute_resolved` (closed by Checkout.com, the payment already refunded) | chargeback | closed |
 */
const EVENTS: Readonly<Record<string, { kind: DisputeKind; status: DisputeStatus }>> = {
  request_for_information_received: { kind: 'retrieval', status: 'evidence_needed' },
  dispute_received: { kind: 'chargeback', status: 'opened' },
  dispute_evidence_required: { kind: 'chargeback', status: 'evidence_needed' },
  dispute_evidence_submitted: { kind: 'chargeback', status: 'opened' },
  dispute_evidence_acknowledged_by_scheme: { kind: 'chargeback', status: 'opened' },
  dispute_arbitration_sent_to_scheme: { kind: 'chargeback', status: 'opened' },
  dispute_arbitration_evidence_submitted: { kind: 'chargeback', status: 'opened' },
  dispute_won: { kind: 'chargeback', status: 'won' },
  dispute_arbitration_won: { kind: 'chargeback', status: 'won' },
  dispute_canceled: { kind: 'chargeback', status: 'won' },
  dispute_lost: { kind: 'chargeback', status: 'lost' },
  dispute_arbitration_lost: { kind: 'chargeback', status: 'lost' },
  dispute_accepted: { kind: 'chargeback', status: 'lost' },
  dispute_expired: { kind: 'chargeback', status: 'lost' },
  dispute_resolved: { kind: 'chargeback', status: 'closed' },
};

export const CHECKOUT_DISPUTE_EVENT_TYPES = Object.keys(EVENTS);

/** A dispute id (`dsp_…`; the documented examples are shorter than the schema's pattern: any length is read). */
export const DISPUTE_ID = /^dsp_\w{1,64}$/;
/** The disputed payment (`pay_…`), read as loosely: an id Chipin does not hold finds no payment. */
const DISPUTED_PAYMENT = /^pay_[0-9a-z]{1,64}$/;

/** The dispute a verified event reports; undefined when it is no dispute event, `malformed` when one we cannot read. */
export function readDisputeEvent(event: { type?: unknown; data?: unknown }): NotifiedDispute | undefined | 'malformed' {
  const mapped = typeof event.type === 'string' && Object.hasOwn(EVENTS, event.type) ? EVENTS[event.type] : undefined;
  if (!mapped) return undefined;
  const d = event.data as Record<string, unknown> | null | undefined;
  if (!d || typeof d.id !== 'string' || !DISPUTE_ID.test(d.id) || typeof d.payment_id !== 'string' || !DISPUTED_PAYMENT.test(d.payment_id)) return 'malformed';
  const dispute: NotifiedDispute = {
    pspDisputeId: d.id,
    transactionId: d.payment_id,
    kind: mapped.kind,
    status: mapped.status,
    reason: typeof d.reason_code === 'string' && d.reason_code !== '' ? d.reason_code : typeof d.category === 'string' ? d.category : null,
  };
  if (d.amount !== undefined || d.currency !== undefined) {
    // The amount may be negative on a dispute against a credit (the `Dispute` schema): its size is what is disputed.
    if (typeof d.amount !== 'number' || !Number.isSafeInteger(d.amount) || typeof d.currency !== 'string' || !/^[A-Z]{3}$/.test(d.currency)) return 'malformed';
    dispute.amountCents = Math.abs(d.amount);
    dispute.currency = d.currency;
  }
  if (typeof d.evidence_required_by === 'string') {
    const due = new Date(d.evidence_required_by);
    if (!Number.isNaN(due.getTime())) dispute.evidenceDueAt = due;
  }
  return dispute;
}

/** Checkout.com's `additional_evidence_text` is at most 500 characters (the Disputes API's `ProvideEvidenceRequest`). */
export const EVIDENCE_TEXT_MAX = 500;
