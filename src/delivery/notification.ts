import { notificationSignature } from './notification-signature.ts';
import { transactionErrorText, type TransactionData } from './transaction.ts';

/** The back-mode notification body, key for key and in the contract's order. */
export interface NotificationBody {
  created_at: string;
  id: string;
  additional_data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  status: string;
  /** A string, as the contract sends it. */
  sandbox: 'true' | 'false';
  /** `''` on success. */
  error: string;
  reference: string;
  /**
   * The card processor's transaction identifier (Lyra's `uuid`), only for payments made through
   * its REST connector (the contract's variant); signed like the other keys.
   */
  uid?: string;
  /** Upper-case hex SHA-256, see notification-signature.ts. */
  signature: string;
}

export interface NotificationInput {
  transaction: TransactionData;
  /** The merchant's reference of the purchase; `''` when it gave none. */
  reference: string | null;
  /** The metadata the merchant sent with the purchase. */
  metadata: Record<string, unknown>;
  sandbox: boolean;
}

/**
 * Builds the signed notification body sent to the purchase's `paymentNotificationUrl` after a
 * PSP transaction, signed with the offer's secret. Pure.
 */
export function buildNotification(input: NotificationInput, secret: string): NotificationBody {
  const { transaction: t } = input;
  const unsigned = {
    created_at: t.created_at,
    id: t.id,
    // `charge_id`: the PSP's transaction id, where the original interface's PrestaShop plugin
    // reads it (docs/migrating.md); outside the signature as all of additional_data.
    additional_data: { charge_id: t.id, ...t.additional_data },
    metadata: input.metadata ?? {},
    status: t.status,
    sandbox: input.sandbox ? ('true' as const) : ('false' as const),
    error: transactionErrorText(t.error),
    reference: input.reference ?? '',
    ...(t.processor ? { uid: t.processor.uid } : {}),
  };
  return { ...unsigned, signature: notificationSignature(unsigned, secret) };
}
