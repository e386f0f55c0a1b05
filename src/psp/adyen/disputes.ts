import type { DisputeKind, DisputeStatus, NotifiedDispute } from '../connector.ts';
import type { NotificationItem } from './mapping.ts';

/**
 * Adyen's dispute webhooks (docs.adyen.com/risk-management/understanding-disputes/dispute-process-and-flow,
 * "Dispute notifications"; docs/money-operations.md#disputes): standard webhook items whose
 * `originalReference` is the disputed payment's pspReference, `amount` the disputed amount, and
 * `additionalData` the dispute's `disputePspReference` (the same through the dispute's stages),
 * `chargebackReasonCode`, `defensePeriodEndsAt` and `disputeStatus`.
 *
 * | eventCode | kind | status |
 * |---|---|---|
 * | `REQUEST_FOR_INFORMATION` | retrieval | evidence needed |
 * | `NOTIFICATION_OF_CHARGEBACK` | chargeback | evidence needed (funds not yet taken) |
 * | `CHARGEBACK` | chargeback | funds taken: lost unless `disputeStatus` says it is still defended (`Undefended` → evidence needed, `Pending`/`Responded` → opened) |
 * | `CHARGEBACK_REVERSED`, `PREARBITRATION_WON` | chargeback | won |
 * | `SECOND_CHARGEBACK`, `PREARBITRATION_LOST` | chargeback | lost |
 * | `NOTIFICATION_OF_FRAUD` | fraud warning | opened |
 */
const EVENTS: Readonly<Record<string, { kind: DisputeKind; status: DisputeStatus }>> = {
  REQUEST_FOR_INFORMATION: { kind: 'retrieval', status: 'evidence_needed' },
  NOTIFICATION_OF_CHARGEBACK: { kind: 'chargeback', status: 'evidence_needed' },
  CHARGEBACK: { kind: 'chargeback', status: 'lost' },
  CHARGEBACK_REVERSED: { kind: 'chargeback', status: 'won' },
  PREARBITRATION_WON: { kind: 'chargeback', status: 'won' },
  SECOND_CHARGEBACK: { kind: 'chargeback', status: 'lost' },
  PREARBITRATION_LOST: { kind: 'chargeback', status: 'lost' },
  NOTIFICATION_OF_FRAUD: { kind: 'fraud_warning', status: 'opened' },
};

/** A `CHARGEBACK` the merchant still defends: the funds are taken, the outcome not known yet. */
const STILL_DEFENDED: Readonly<Record<string, DisputeStatus>> = { Undefended: 'evidence_needed', Pending: 'opened', Responded: 'opened' };

/** The dispute an item reports, or undefined when it is not a dispute item. */
export function readDisputeItem(item: NotificationItem): NotifiedDispute | undefined {
  const mapped = EVENTS[item.eventCode];
  if (!mapped) return undefined;
  const extra = item.additionalData ?? {};
  const status = item.eventCode === 'CHARGEBACK' ? (STILL_DEFENDED[extra.disputeStatus ?? ''] ?? mapped.status) : mapped.status;
  const due = extra.defensePeriodEndsAt ? new Date(extra.defensePeriodEndsAt) : undefined;
  const dispute: NotifiedDispute = {
    pspDisputeId: extra.disputePspReference || item.pspReference,
    transactionId: item.originalReference || item.pspReference,
    kind: mapped.kind,
    status,
    reason: extra.chargebackReasonCode || item.reason || null,
    amountCents: Math.max(0, Math.trunc(item.amount.value)),
    currency: item.amount.currency,
  };
  if (due && !Number.isNaN(due.getTime())) dispute.evidenceDueAt = due;
  return dispute;
}
