import { createHash } from 'node:crypto';
import { toPublicId } from '../domain/ids.ts';
import { signHs256 } from './jwt.ts';

/**
 * The payment notification of a transfer-mode purchase (docs/webhooks.md#transfer-mode-payment-notification):
 * the original interface's body, posted once to the purchase's `paymentNotificationUrl` when the
 * purchase is validated, as `{"signature": <HS256 JWT of the body>}` signed with the offer's
 * secret (every offer has one). Pure.
 */
export interface TransferNotificationBody {
  reference: string;
  /** When the purchase was validated, UTC, `YYYY-MM-DD HH:MM:SS.ffffff` as the original interface writes it. */
  created: string;
  /** `tri_<uuid>`: the transfer order item, one per purchase ({@link transferOrderItemUid}). */
  transfer_order_item_uid: string;
  /** The offer (`mer_…`). */
  merchant_uid: string;
  purchase_uid: string;
  amount_cents: number;
}

/**
 * An RFC 4122 name-based uuid (version 5, SHA-1) of the purchase's id in a namespace of its own:
 * the same purchase always has the same transfer order item, whichever process sends or resends
 * its notification, and nothing is stored for it.
 */
const NAMESPACE = Buffer.from('8d5b1f0e4c3a4e7b9f2d6a1c0b9e8f71', 'hex');

export function transferOrderItemUid(purchaseId: string): string {
  const hash = createHash('sha1')
    .update(Buffer.concat([NAMESPACE, Buffer.from(purchaseId.toLowerCase(), 'utf8')]))
    .digest();
  const b = hash.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `tri_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `2020-09-17 15:00:02.052000`: UTC, microseconds (a millisecond instant padded with zeros). */
export function transferCreated(at: Date): string {
  const iso = at.toISOString(); // 2020-09-17T15:00:02.052Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`;
}

export function transferNotificationBody(input: {
  reference: string | null;
  validatedAt: Date;
  offerId: string;
  purchaseId: string;
  amountCents: number;
}): TransferNotificationBody {
  return {
    reference: input.reference ?? '',
    created: transferCreated(input.validatedAt),
    transfer_order_item_uid: transferOrderItemUid(input.purchaseId),
    merchant_uid: toPublicId('mer', input.offerId),
    purchase_uid: toPublicId('pur', input.purchaseId),
    amount_cents: input.amountCents,
  };
}

/** The notification as sent: `{"signature": <JWT>}`, the JWT's claims the body itself (no others), as the original interface's example. */
export function signedTransferNotification(body: TransferNotificationBody, secret: string): string {
  return JSON.stringify({ signature: signHs256({ ...body }, secret) });
}
