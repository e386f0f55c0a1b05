import { signHs256 } from './jwt.ts';
import type { TransactionData } from './transaction.ts';

/**
 * The back-mode result handed to the merchant's front end after a payment (contract: "Back
 * mode: result passed to the merchant front end"; DESIGN §5), independent of the PSP. The hosted
 * pages pass it as a redirect parameter and by `postMessage`. Pure.
 */
export interface FrontResult {
  transaction: {
    /** ISO 8601. */
    created_at: string;
    /** Null on success, else the error detail. */
    error: FrontResultError | null;
    /** The PSP's transaction id. */
    id: string;
    sandbox: boolean;
    /** `authorized`, `completed`, `failed`, ... */
    status: string;
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
export interface FrontResultError {
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

export function buildFrontResult(input: FrontResultInput): FrontResult {
  const t = input.transaction;
  return {
    transaction: {
      created_at: t.created_at,
      error: errorDetail(t.error),
      id: t.id,
      sandbox: input.sandbox,
      status: t.status,
    },
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
