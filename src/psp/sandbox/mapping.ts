import type { DeclineReason, DisputeKind, DisputeStatus, NotificationResult, NotifiedDispute, TransactionResult, TransactionStatus } from '../connector.ts';

/**
 * The sandbox PSP's own vocabulary and its mapping onto Chipin's (the "transformers" of a
 * Hyperswitch connector). Pure: no I/O. The switches are exhaustive, so a status or code added
 * on the PSP side fails to compile until it is mapped.
 */

/** Transaction states as the sandbox PSP names them (stored in sandbox_psp_transactions.status). */
export type SandboxStatus = 'pending_authentication' | 'held' | 'settled' | 'cancelled' | 'failed' | 'lapsed';

const SANDBOX_STATUSES: readonly SandboxStatus[] = ['pending_authentication', 'held', 'settled', 'cancelled', 'failed', 'lapsed'];

/** Refusal codes as the sandbox PSP names them. */
export type SandboxDeclineCode =
  | 'do_not_honor'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'invalid_number'
  | 'authentication_failed'
  | 'authorization_lapsed'
  | 'exceeds_available'
  | 'processing_error';

export interface TransactionRow {
  id: string;
  payment_method_id: string;
  off_session: boolean;
  capture_mode: 'automatic' | 'manual';
  status: SandboxStatus;
  decline_code: SandboxDeclineCode | null;
  amount_cents: number;
  currency: string;
  captured_cents: number;
  refunded_cents: number;
  return_url: string | null;
  challenge_token: string | null;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function unreachable(value: never): never {
  throw new Error(`unmapped sandbox value ${String(value)}`);
}

function isSandboxStatus(value: unknown): value is SandboxStatus {
  return typeof value === 'string' && (SANDBOX_STATUSES as readonly string[]).includes(value);
}

/** A settled transaction reads as `refunded` once any part of it is refunded. */
export function toStatus(status: SandboxStatus, refundedCents: number): TransactionStatus {
  switch (status) {
    case 'pending_authentication':
      return 'requires_action';
    case 'held':
      return 'authorized';
    case 'settled':
      return refundedCents > 0 ? 'refunded' : 'captured';
    case 'cancelled':
      return 'voided';
    case 'failed':
      return 'declined';
    case 'lapsed':
      return 'expired';
    default:
      return unreachable(status);
  }
}

export function toDeclineReason(code: SandboxDeclineCode): DeclineReason {
  switch (code) {
    case 'do_not_honor':
      return 'card_declined';
    case 'insufficient_funds':
      return 'insufficient_funds';
    case 'expired_card':
      return 'expired_card';
    case 'incorrect_cvc':
      return 'incorrect_cvc';
    case 'invalid_number':
      return 'invalid_card';
    case 'authentication_failed':
      return 'authentication_failed';
    case 'authorization_lapsed':
      return 'authorization_expired';
    case 'exceeds_available':
      return 'amount_too_large';
    case 'processing_error':
      return 'processing_error';
    default:
      return unreachable(code);
  }
}

/** The sandbox's default message per code; operations may give a more precise one. */
function declineMessage(code: SandboxDeclineCode): string {
  switch (code) {
    case 'do_not_honor':
      return 'The card was declined.';
    case 'insufficient_funds':
      return 'The card has insufficient funds.';
    case 'expired_card':
      return 'The card has expired.';
    case 'incorrect_cvc':
      return "The card's security code is incorrect.";
    case 'invalid_number':
      return 'The card number is not a valid card number.';
    case 'authentication_failed':
      return '3-D Secure authentication failed.';
    case 'authorization_lapsed':
      return 'The authorisation hold has expired.';
    case 'exceeds_available':
      return 'The amount is larger than what is left.';
    case 'processing_error':
      return 'The sandbox could not process the request.';
    default:
      return unreachable(code);
  }
}

export function decline(code: SandboxDeclineCode, message = declineMessage(code)): { reason: DeclineReason; message: string } {
  return { reason: toDeclineReason(code), message };
}

function challengeUrl(publicUrl: string, transactionId: string): string {
  return `${publicUrl}/sandbox-psp/challenge/${encodeURIComponent(transactionId)}`;
}

/** Our view of a stored sandbox transaction. */
export function toTransactionResult(row: TransactionRow, publicUrl: string): TransactionResult {
  const result: TransactionResult = {
    transactionId: row.id,
    status: toStatus(row.status, row.refunded_cents),
    amountCents: row.amount_cents,
    capturedCents: row.captured_cents,
    refundedCents: row.refunded_cents,
  };
  if (row.status === 'failed' && row.decline_code) result.decline = decline(row.decline_code);
  if (row.status === 'pending_authentication') result.challengeUrl = challengeUrl(publicUrl, row.id);
  if (row.expires_at && (row.status === 'held' || row.status === 'lapsed')) result.expiresAt = row.expires_at;
  return result;
}

/** Body of a sandbox notification: `{"type":"transaction.updated","data":{"transaction_id","status",...}}`. */
export interface SandboxNotificationBody {
  id: string;
  type: 'transaction.updated';
  created: number;
  data: { transaction_id: string; status: SandboxStatus; captured_cents: number; refunded_cents: number };
}

export function notificationBody(row: TransactionRow, eventId: string, now: Date): SandboxNotificationBody {
  return {
    id: eventId,
    type: 'transaction.updated',
    created: Math.floor(now.getTime() / 1000),
    data: { transaction_id: row.id, status: row.status, captured_cents: row.captured_cents, refunded_cents: row.refunded_cents },
  };
}

/** Dispute states as the sandbox PSP names them (sandbox_psp_disputes.status). */
export type SandboxDisputeStatus = 'needs_response' | 'won' | 'lost' | 'closed';

export interface SandboxDisputeRow {
  id: string;
  transaction_id: string;
  kind: DisputeKind;
  status: SandboxDisputeStatus;
  reason: string;
  amount_cents: number;
  currency: string;
  evidence_due_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const DISPUTE_KINDS: readonly DisputeKind[] = ['chargeback', 'retrieval', 'fraud_warning'];

function toDisputeStatus(kind: DisputeKind, status: SandboxDisputeStatus): DisputeStatus {
  switch (status) {
    case 'needs_response':
      return kind === 'fraud_warning' ? 'opened' : 'evidence_needed';
    case 'won':
    case 'lost':
    case 'closed':
      return status;
    default:
      return unreachable(status);
  }
}

/** Body of a sandbox dispute notification: `{"type":"dispute.updated","data":{"dispute_id","transaction_id","kind","status",...}}`. */
export interface SandboxDisputeNotificationBody {
  id: string;
  type: 'dispute.updated';
  created: number;
  data: {
    dispute_id: string;
    transaction_id: string;
    kind: DisputeKind;
    status: SandboxDisputeStatus;
    reason: string;
    amount_cents: number;
    currency: string;
    evidence_due_at: number | null;
  };
}

export function disputeNotificationBody(row: SandboxDisputeRow, eventId: string, now: Date): SandboxDisputeNotificationBody {
  return {
    id: eventId,
    type: 'dispute.updated',
    created: Math.floor(now.getTime() / 1000),
    data: {
      dispute_id: row.id,
      transaction_id: row.transaction_id,
      kind: row.kind,
      status: row.status,
      reason: row.reason,
      amount_cents: row.amount_cents,
      currency: row.currency,
      evidence_due_at: row.evidence_due_at ? Math.floor(row.evidence_due_at.getTime() / 1000) : null,
    },
  };
}

function readDispute(data: Partial<SandboxDisputeNotificationBody['data']>): NotifiedDispute | undefined {
  const statuses: readonly string[] = ['needs_response', 'won', 'lost', 'closed'];
  if (typeof data.dispute_id !== 'string' || typeof data.transaction_id !== 'string') return undefined;
  if (!DISPUTE_KINDS.includes(data.kind as DisputeKind) || !statuses.includes(data.status as string)) return undefined;
  if (!Number.isSafeInteger(data.amount_cents) || (data.amount_cents as number) < 0 || typeof data.currency !== 'string') return undefined;
  const kind = data.kind as DisputeKind;
  const dispute: NotifiedDispute = {
    pspDisputeId: data.dispute_id,
    transactionId: data.transaction_id,
    kind,
    status: toDisputeStatus(kind, data.status as SandboxDisputeStatus),
    reason: typeof data.reason === 'string' ? data.reason : null,
    amountCents: data.amount_cents as number,
    currency: data.currency,
  };
  if (typeof data.evidence_due_at === 'number') dispute.evidenceDueAt = new Date(data.evidence_due_at * 1000);
  return dispute;
}

/** Reads a verified notification body; anything unexpected is `malformed`. */
export function readNotification(rawBody: string): NotificationResult {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const d = body as Partial<SandboxDisputeNotificationBody> | null;
  if (d?.type === 'dispute.updated') {
    const dispute = typeof d.data === 'object' && d.data !== null ? readDispute(d.data) : undefined;
    if (!dispute) return { ok: false, reason: 'malformed' };
    // The disputed transaction itself has not changed: Chipin records the dispute only.
    return { ok: true, transactionId: dispute.transactionId, status: 'captured', dispute };
  }
  const b = body as Partial<SandboxNotificationBody> | null;
  const data = b?.data;
  if (b?.type !== 'transaction.updated' || typeof data !== 'object' || data === null) return { ok: false, reason: 'malformed' };
  if (typeof data.transaction_id !== 'string' || !isSandboxStatus(data.status)) return { ok: false, reason: 'malformed' };
  const refunded = typeof data.refunded_cents === 'number' ? data.refunded_cents : 0;
  return { ok: true, transactionId: data.transaction_id, status: toStatus(data.status, refunded) };
}
