import type { DisputeKind, DisputeStatus, NotifiedDispute } from '../connector.ts';

/**
 * Hyperswitch's dispute webhooks (docs/money-operations.md#disputes; docs/psp/hyperswitch.md lists
 * the sources: `OutgoingWebhook`, `OutgoingWebhookContent`, `EventType`, `DisputeResponse`,
 * `DisputeStatus`, `DisputeStage` in juspay/hyperswitch crates/api_models/src/webhooks.rs,
 * disputes.rs and enums.rs). An outgoing webhook of event type `dispute_*` carries
 * `content: {type: "dispute_details", object: DisputeResponse}`: `dispute_id` (Hyperswitch's own,
 * the same through the dispute's life), `payment_id`, `amount` (`StringMinorUnit`: minor units as
 * a string), `currency`, `dispute_stage`, `dispute_status`, `connector_reason` (the reason
 * read; else `connector_reason_code`), `challenge_required_by` (ISO 8601, UTC).
 *
 * | `dispute_status` | ours |
 * |---|---|
 * | `dispute_opened` | evidence needed (the merchant may challenge it) |
 * | `dispute_challenged` (evidence submitted) | opened |
 * | `dispute_won`, `dispute_cancelled` (withdrawn by the issuer) | won |
 * | `dispute_lost`, `dispute_accepted`, `dispute_expired` (no answer in time) | lost |
 *
 * The stage gives the kind: `pre_dispute` (an inquiry before any chargeback; no money taken) is a
 * retrieval request, `dispute` and `pre_arbitration` a chargeback.
 */
const STATUS: Readonly<Record<string, DisputeStatus>> = {
  dispute_opened: 'evidence_needed',
  dispute_challenged: 'opened',
  dispute_won: 'won',
  dispute_cancelled: 'won',
  dispute_lost: 'lost',
  dispute_accepted: 'lost',
  dispute_expired: 'lost',
};

const KIND: Readonly<Record<string, DisputeKind>> = { pre_dispute: 'retrieval', dispute: 'chargeback', pre_arbitration: 'chargeback' };

/** The event types of a dispute (`EventType`): each names the dispute's status at the time. */
export const HYPERSWITCH_DISPUTE_EVENT_TYPES = Object.keys(STATUS);

/** Hyperswitch's dispute ids (`dp_…` where Hyperswitch makes them): read loosely, sent back as they came. */
const DISPUTE_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** The disputed payment, read as loosely: an id Chipin does not hold finds no payment. */
const DISPUTED_PAYMENT = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The dispute a verified webhook reports: undefined when it is no dispute webhook, `malformed`
 * when it is one we cannot read. The object's `dispute_status` is read, the event type only
 * tells it is a dispute's.
 */
export function readDisputeWebhook(event: { event_type?: unknown; content?: unknown }): NotifiedDispute | undefined | 'malformed' {
  const content = event.content as { type?: unknown; object?: unknown } | null | undefined;
  const isDispute = content?.type === 'dispute_details' || (typeof event.event_type === 'string' && Object.hasOwn(STATUS, event.event_type));
  if (!isDispute) return undefined;
  const d = content?.object as Record<string, unknown> | null | undefined;
  if (content?.type !== 'dispute_details' || !d) return 'malformed';
  const status = typeof d.dispute_status === 'string' && Object.hasOwn(STATUS, d.dispute_status) ? STATUS[d.dispute_status] : undefined;
  const kind = typeof d.dispute_stage === 'string' && Object.hasOwn(KIND, d.dispute_stage) ? KIND[d.dispute_stage] : undefined;
  const amount = typeof d.amount === 'string' && /^\d{1,15}$/.test(d.amount) ? Number(d.amount) : undefined;
  const currency = typeof d.currency === 'string' && /^[A-Z]{3}$/.test(d.currency) ? d.currency : undefined;
  if (typeof d.dispute_id !== 'string' || !DISPUTE_ID.test(d.dispute_id) || typeof d.payment_id !== 'string' || !DISPUTED_PAYMENT.test(d.payment_id)) return 'malformed';
  if (!status || !kind || amount === undefined || !currency) return 'malformed';
  const reason = [d.connector_reason, d.connector_reason_code].find((r): r is string => typeof r === 'string' && r !== '');
  const dispute: NotifiedDispute = {
    pspDisputeId: d.dispute_id,
    transactionId: d.payment_id,
    kind,
    status,
    reason: reason ?? null,
    amountCents: amount,
    currency,
  };
  if (typeof d.challenge_required_by === 'string') {
    // Hyperswitch's date-times are UTC; some write no zone.
    const v = d.challenge_required_by;
    const due = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
    if (!Number.isNaN(due.getTime())) dispute.evidenceDueAt = due;
  }
  return dispute;
}
