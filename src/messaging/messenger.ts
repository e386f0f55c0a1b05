/** A purchase link to send to the leader, by e-mail or SMS (and the base of {@link PledgeMessage}). */
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
 * A pledger's message of the shared pot: the leader paid for the purchase and invites friends
 * (pledgers) to pay a share on their own page before a deadline. `url` is the pledger's own page,
 * `amountCents` the whole purchase; the message greets `pledgerName` (`firstName` is not used).
 */
export interface PledgeMessage extends PurchaseLinkMessage {
  kind: 'invitation' | 'reminder';
  /** Who invites (the leader's first name, or e-mail when no name is known). */
  inviterName: string;
  /** The pledger's share, minor units of `currency`. */
  shareCents: number;
  /** When the pot closes. */
  deadline: Date;
  /** The pledger's own name, when the leader gave it. */
  pledgerName?: string;
}

/**
 * Sends messages to shoppers and records each attempt in `outbound_messages`. A send never
 * throws: it answers whether the mail server / SMS gateway accepted the message.
 */
export interface Messenger {
  sendPurchaseLinkEmail(to: string, msg: PurchaseLinkMessage): Promise<boolean>;
  sendPurchaseLinkSms(to: string, msg: PurchaseLinkMessage): Promise<boolean>;
  /** A pledger's invitation or reminder (`msg.kind`), by e-mail. */
  sendPledgeEmail(to: string, msg: PledgeMessage): Promise<boolean>;
  /** A pledger's invitation or reminder (`msg.kind`), by SMS. */
  sendPledgeSms(to: string, msg: PledgeMessage): Promise<boolean>;
  /** Tells a pledger their share was refunded, by e-mail. */
  sendPledgeRefundEmail(to: string, msg: PledgeRefundMessage): Promise<boolean>;
}

/**
 * A pledger's share of a shared pot was (partly) paid back after the merchant refunded the
 * purchase (DESIGN §10). `amountCents` is the whole purchase; `url` is not used (no action asked).
 */
export interface PledgeRefundMessage extends Omit<PurchaseLinkMessage, 'url' | 'firstName'> {
  /** What this pledger gets back, minor units of `currency`. */
  refundCents: number;
  pledgerName?: string;
}
