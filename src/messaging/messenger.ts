import type { CreditMentions } from '../domain/credit-mentions.ts';

/** A purchase link to send to the leader, by e-mail or SMS (and the base of {@link PledgeMessage}). */
export interface PurchaseLinkMessage {
  accountId: string;
  purchaseId: string;
  /** Locale of the purchase (`fr_FR`, `en_GB`, ...); texts fall back to English. */
  language: string;
  merchantName: string;
  /** The account's time zone (IANA name): the one every date with a time in the message is shown in, and stated. */
  timeZone: string;
  title: string;
  amountCents: number;
  currency: string;
  url: string;
  firstName?: string;
  /**
   * What the offer is, so the link says it (a pot, 3x with its credit terms, a deferred payment
   * with its date). Absent: the shared-pot wording.
   */
  offer?: OfferSummary;
}

/** The figures a consumer-credit offer discloses (amounts in minor units of the message's currency). */
export interface CreditTerms {
  /** The credit: what is not paid at checkout (INSTALLMENTS: amount − first line; DEFERRED: the amount; DOWN_PAYMENT: the balance). */
  financedCents: number;
  /** All the fees: the total cost of the credit. */
  feesCents: number;
  /** The amount plus the fees. */
  totalDueCents: number;
  /** The fixed APR (TAEG), percent, 2 decimals. */
  taegPercent: number;
  /** The lender and the right of withdrawal (docs/schedules.md#credit-mentions); undefined: not a credit (a free deferred payment). */
  mentions: CreditMentions | undefined;
}

/** One payment of a plan: its date ('yyyy-mm-dd') and what is charged then, fees included. */
interface PlanLine {
  dueDate: string;
  amountCents: number;
}

/** What an offer is, as the messages tell it. */
export type OfferSummary =
  | { type: 'SHARED' }
  | { type: 'INSTALLMENTS'; count: number; lines: PlanLine[]; credit: CreditTerms }
  | { type: 'DEFERRED'; dueDate: string; credit: CreditTerms }
  /** A deposit paid at checkout (its line with the fees), then the balance on its date (docs/schedules.md#down-payment). */
  | { type: 'DOWN_PAYMENT'; deposit: PlanLine; balance: PlanLine; credit: CreditTerms };

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
  /**
   * A receipt or notice (`notice.kind`), by e-mail, at most once per `notice.key`: a second send
   * with the same key sends nothing and answers false.
   */
  sendNoticeEmail(to: string, notice: ShopperNotice): Promise<boolean>;
  /**
   * A receipt or notice by SMS, for a shopper who gave only a phone number: once per
   * `notice.key`, as {@link sendNoticeEmail} (the key is claimed per channel).
   */
  sendNoticeSms(to: string, notice: SmsNotice): Promise<boolean>;
}

/** Common to every receipt and notice. */
export interface NoticeBase extends Omit<PurchaseLinkMessage, 'firstName' | 'offer'> {
  /** Once per key: one per payment, installment or attempt (docs/messaging.md). */
  key: string;
  /** Whom the e-mail greets, when known. */
  name?: string;
  /** The saved card's brand and last four digits, when there is one. */
  card?: { brand: string; last4: string };
  /** The shopper's space opened on this purchase (docs/shopper-space.md): every e-mail links to it. */
  spaceUrl?: string;
}

/** One installment of a plan, for the installment notices. */
export interface InstallmentRef {
  /** 0-based. */
  index: number;
  /** Installments in the plan (1 for a deferred payment, 2 for a down payment). */
  count: number;
  /** The balance of a down payment (docs/schedules.md#down-payment): told as "the balance", not as an installment. */
  balance?: true;
  dueDate: string;
  /** Charged for it, fees included. */
  amountCents: number;
}

/**
 * Receipts and notices to shoppers (docs/messaging.md, "E-mails and SMS over a purchase's life").
 * `amountCents` is the whole purchase; `url` the shopper's own page (purchase or pledge).
 */
export type ShopperNotice = NoticeBase &
  (
    | {
        /** The leader's checkout is done: what was charged, what is held, what comes next. */
        kind: 'leader_receipt';
        /** Captured at checkout. */
        chargedCents: number;
        /** Authorised on the card and not captured (a pot's guarantee, a deferred payment). */
        heldCents: number;
        offer: OfferSummary;
        /** A pot with friends: when it closes, how many friends were invited and what they owe. */
        pot?: { deadline: Date; invited: number; pledgedCents: number };
      }
    | {
        /** A pledger's share was charged. */
        kind: 'pledge_receipt';
        chargedCents: number;
        inviterName: string;
        /** Still to collect in the pot after this share; 0: the pot is complete. */
        leftCents: number;
        deadline: Date;
      }
    | {
        /** A later installment (or the deferred payment) was charged. */
        kind: 'installment_receipt';
        installment: InstallmentRef;
        next?: PlanLine;
      }
    | {
        /** Sent a few days before an off-session charge. */
        kind: 'precharge';
        installment: InstallmentRef;
      }
    | {
        /** An installment (or the deferred payment) was refused. */
        kind: 'charge_failed';
        installment: InstallmentRef;
        /** The next try ('yyyy-mm-dd'); absent: it was the last one, the purchase failed. */
        retryOn?: string;
        /** With a next try: the purchase in the shopper's space, to pay it now or change the card first. */
        payUrl?: string;
      }
    | {
        /** Friends' shares covered the amount: the purchase is paid, the leader's guarantee released. */
        kind: 'pot_complete';
        /** The hold released on the leader's card; 0 when there was none left. */
        releasedCents: number;
      }
    | {
        /**
         * Renewing the hold on the leader's card before it lapses was refused
         * (docs/money-operations.md#re-authorisation): the hold stays until `lapsesAt`, then
         * what is due is charged to the card on `dueAt` (the pot's deadline, the deferred date).
         */
        kind: 'hold_renewal_failed';
        heldCents: number;
        lapsesAt: Date;
        dueAt: Date;
      }
    | {
        /** The pot's uncovered rest was refused at the deadline: the purchase failed. */
        kind: 'rest_failed';
        restCents: number;
      }
    | {
        /** The pot's deadline charged its uncovered rest to the leader's card: the purchase is paid. */
        kind: 'rest_charged';
        restCents: number;
        /** Charged to the leader's card for the purchase in all, the rest included. */
        chargedCents: number;
        /** Taken from the amount held at checkout (else charged to the saved card afresh). */
        fromHold: boolean;
      }
    | {
        /** Money went back to the shopper's card (docs/messaging.md#money-movements-and-their-messages). */
        kind: 'refund';
        /** What this refund put back on this card. */
        refundCents: number;
        /** This shopper's payments for the purchase, this refund included: net = charged − refunded. */
        chargedCents: number;
        refundedCents: number;
        /** The merchant refunded; or the payment came after its purpose was gone (the pot closed, the purchase expired) and was given back. */
        reason: 'merchant' | 'given_back';
        /**
         * The leader's only: what this refund took off installments (or a deferred payment) not
         * collected yet, and what is left to collect after it, in order (empty: nothing more).
         */
        lowered?: { cents: number; remaining: PlanLine[] };
      }
  );

/** The notices that also go by SMS, to a shopper known only by a phone number. */
export type SmsNotice = Extract<
  ShopperNotice,
  { kind: 'pledge_receipt' | 'pot_complete' | 'rest_charged' | 'rest_failed' | 'refund' | 'installment_receipt' | 'precharge' | 'charge_failed' | 'hold_renewal_failed' }
>;
