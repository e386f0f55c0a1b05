import type { ProcessorDetails } from '../psp/connector.ts';

/**
 * The PSP transaction a `payment.transaction` event carries in `data.transaction`
 * (src/domain/events.ts): what the back-mode notification and the front-end result are built
 * from. Pure.
 */
export interface TransactionData {
  /** The PSP's identifier of the transaction, not Chipin's. */
  id: string;
  /** `authorized`, `completed`, `failed`, `voided` or `refunded` (docs/webhooks.md#back-mode-notification). */
  status: string;
  amount_cents?: number;
  /** ISO 8601. */
  created_at: string;
  /** Null (or absent) on success; a text or `{code, message}` otherwise. */
  error?: unknown;
  /** Optional data from the PSP (identifiers needed for refunds, say). */
  additional_data?: Record<string, unknown>;
  /**
   * The card processor's identifiers and label (Lyra), stored as `processor: {uid, legacy_id,
   * reference, status_label}`: their presence makes the notification and the front-end result
   * the contract's card-processor variant. Absent for other PSPs.
   */
  processor?: ProcessorDetails;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The transaction of an event's `data`, or undefined when it is missing or malformed. */
export function transactionOf(data: unknown): TransactionData | undefined {
  const t = isRecord(data) ? data.transaction : undefined;
  if (!isRecord(t)) return undefined;
  if (typeof t.id !== 'string' || typeof t.status !== 'string') return undefined;
  const createdAt = t.created_at instanceof Date ? t.created_at.toISOString() : t.created_at;
  if (typeof createdAt !== 'string') return undefined;
  return {
    id: t.id,
    status: t.status,
    created_at: createdAt,
    ...(typeof t.amount_cents === 'number' ? { amount_cents: t.amount_cents } : {}),
    ...(t.error === undefined ? {} : { error: t.error }),
    ...(isRecord(t.additional_data) ? { additional_data: t.additional_data } : {}),
    ...processorOf(t.processor),
  };
}

function processorOf(p: unknown): { processor?: ProcessorDetails } {
  if (!isRecord(p) || typeof p.uid !== 'string' || typeof p.reference !== 'string' || typeof p.status_label !== 'string') return {};
  return { processor: { uid: p.uid, legacyId: typeof p.legacy_id === 'string' ? p.legacy_id : null, reference: p.reference, statusLabel: p.status_label } };
}

/**
 * The error of a transaction as one line of text: `''` when there is none (the contract's
 * "empty string when there is no error").
 */
export function transactionErrorText(error: unknown): string {
  if (error === null || error === undefined || error === false) return '';
  if (typeof error === 'string') return error;
  if (isRecord(error)) {
    const message = error.message ?? error.reason ?? error.code;
    if (typeof message === 'string') return message;
  }
  return JSON.stringify(error) ?? '';
}

/**
 * The leader's accepted checkout transaction as the merchant is told of it: `completed`, whatever
 * the card holds (a deferred payment's or a pot's hold is `authorized` at the PSP), since the
 * purchase is secured and the merchant paid in full (docs/webhooks.md#back-mode-notification). A
 * refused one is left as it is. Pure.
 */
export function asCheckoutOutcome(t: TransactionData): TransactionData {
  return t.status === 'authorized' || t.status === 'completed' ? { ...t, status: 'completed', error: '' } : t;
}
