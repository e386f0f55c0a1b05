import type { Lang } from '../http/i18n.ts';

/** A purchase link to send to the leader (or later a pledger invitation), by e-mail or SMS. */
export interface PurchaseLinkMessage {
  accountId: string;
  purchaseId: string;
  /** Locale of the purchase (`fr_FR`, `en_GB`, ...); texts fall back to English. */
  language: string;
  merchantName: string;
  title: string;
  amountCents: number;
  currency: string;
  url: string;
  firstName?: string;
}

/**
 * Sends messages to shoppers and records each attempt in `outbound_messages`. A send never
 * throws: it answers whether the mail server / SMS gateway accepted the message.
 */
export interface Messenger {
  sendPurchaseLinkEmail(to: string, msg: PurchaseLinkMessage): Promise<boolean>;
  sendPurchaseLinkSms(to: string, msg: PurchaseLinkMessage): Promise<boolean>;
}

export type { Lang };
