import { signHs256 } from './jwt.ts';
import type { TransactionData } from './transaction.ts';

/**
 * The back-mode result handed to the merchant's front end after a payment (contract: "Back
 * mode: result passed to the merchant front end"; docs/webhooks.md#front-end-result), independent
 * of the PSP. The hosted pages pass it as a redirect parameter and by `postMessage`. Pure.
 */
export interface FrontResult {
  transaction: {
    /** ISO 8601. */
    created_at: string;
    /** Null on success, else the error detail. */
    error: FrontResultError | null;
    /** The PSP's transaction id; in the card-processor variant, the processor's old identifier. */
    id: string;
    /** Card-processor variant only (Lyra): the processor's reference of the transaction's order. */
    reference?: string;
    sandbox: boolean;
    /** `authorized`, `completed`, `failed`, ...; in the card-processor variant, the processor's label (`AUTHORISED`). */
    status: string;
    /** Card-processor variant only (Lyra): the processor's new transaction identifier, the one to use. */
    uid?: string;
  };
  purchase: {
    /** The metadata the merchant sent with the purchase. */
    meta_data: Record<string, unknown>;
    /** The merchant's reference; `''` when it gave none. */
    reference: string;
    /** `pur_<uuid>`. */
    uid: string;
  };
}

/** An error as the front end receives it: a machine code (when known) and a sentence. */
interface FrontResultError {
  code?: string;
  message: string;
}

export interface FrontResultInput {
  transaction: TransactionData;
  sandbox: boolean;
  purchase: { uid: string; reference: string | null; metadata: Record<string, unknown> };
}

function errorDetail(error: unknown): FrontResultError | null {
  if (error === null || error === undefined || error === false || error === '') return null;
  if (typeof error === 'string') return { message: error };
  if (typeof error === 'object' && !Array.isArray(error)) {
    const e = error as Record<string, unknown>;
    const code = typeof e.code === 'string' ? e.code : undefined;
    const message = typeof e.message === 'string' ? e.message : typeof e.reason === 'string' ? e.reason : (code ?? JSON.stringify(error));
    return code === undefined ? { message } : { code, message };
  }
  return { message: String(error) };
}

/**
 * The processor labels that are an accepted authorisation. The contract names `AUTHORISED`;
 * Lyra gives a hold awaiting capture (Chipin's guarantee and deferred payments) as
 * `AUTHORISED_TO_VALIDATE`, and a remitted payment as `CAPTURED`: those are accepted too.
 */
const ACCEPTED_LABELS: ReadonlySet<string> = new Set(['AUTHORISED', 'AUTHORISED_TO_VALIDATE', 'CAPTURED']);

/**
 * Whether the card processor did not accept a transaction Chipin counts as authorised or
 * captured (Lyra still verifying it, say): the contract then passes the merchant's front end an
 * error instead of the result. Voids and refunds follow an accepted authorisation: never. Pure.
 */
export function processorRefused(t: TransactionData): boolean {
  return t.processor !== undefined && (t.status === 'authorized' || t.status === 'completed') && !ACCEPTED_LABELS.has(t.processor.statusLabel);
}

export function buildFrontResult(input: FrontResultInput): FrontResult {
  const t = input.transaction;
  const p = t.processor;
  return {
    // The card-processor variant: the old id as `id` (kept for older integrations), the new one
    // as `uid`, the order reference, and `status` `AUTHORISED` for every accepted label: the
    // contract says a result's status "must be AUTHORISED", and integrations test exactly that
    // (a hold reads AUTHORISED_TO_VALIDATE at Lyra). A label not accepted stays as Lyra gave it,
    // in the error handed over instead of a result.
    transaction: p
      ? {
          created_at: t.created_at,
          error: errorDetail(t.error),
          id: p.legacyId ?? t.id,
          reference: p.reference,
          sandbox: input.sandbox,
          status: ACCEPTED_LABELS.has(p.statusLabel) ? 'AUTHORISED' : p.statusLabel,
          uid: p.uid,
        }
      : { created_at: t.created_at, error: errorDetail(t.error), id: t.id, sandbox: input.sandbox, status: t.status },
    purchase: {
      meta_data: input.purchase.metadata ?? {},
      reference: input.purchase.reference ?? '',
      uid: input.purchase.uid,
    },
  };
}

/**
 * The result as an HS256 JWT signed with the offer's secret: its claims are the result's two
 * members plus `iat` (seconds) when `issuedAt` is given. The merchant verifies it with the
 * secret it received for the offer.
 */
export function frontResultJwt(result: FrontResult, offerSecret: string, issuedAt?: Date): string {
  const claims: Record<string, unknown> = { ...result };
  if (issuedAt) claims.iat = Math.floor(issuedAt.getTime() / 1000);
  return signHs256(claims, offerSecret);
}

/**
 * What the hosted page hands over: the result, and its JWT when the offer has a secret
 * (every offer made by `merchant create` has one; an offer without one gets the bare result).
 */
export function frontResultHandover(input: FrontResultInput, offerSecret: string | undefined, issuedAt?: Date): { result: FrontResult; jwt?: string } {
  const result = buildFrontResult(input);
  return offerSecret ? { result, jwt: frontResultJwt(result, offerSecret, issuedAt) } : { result };
}
