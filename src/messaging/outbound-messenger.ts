import type { Logger } from 'pino';
import { isEmailAddress } from '../domain/email.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { newUuid } from '../domain/ids.ts';
import { errorText } from './error-text.ts';
import { claimMessage, recordMessage, settleMessage } from './outbound-message-repository.ts';
import type { Mailer } from './mailer.ts';
import type { Messenger, PledgeMessage, PurchaseLinkMessage, ShopperNotice, SmsNotice } from './messenger.ts';
import { noticeSms } from './notice-sms.ts';
import { noticeEmail, type NoticeKind } from './notice-templates.ts';
import { normalizePhone } from './phone-numbers.ts';
import type { SmsGateway } from './sms.ts';
import { pledgeEmail, pledgeSms, purchaseLinkEmail, purchaseLinkSms, type PurchaseLinkEmail } from './templates.ts';

export interface OutboundMessengerDeps {
  db: Database;
  mailer: Mailer;
  sms: SmsGateway;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The service clock (stamps `created_at`); the system clock by default. */
  clock?: Clock;
}

/** One row of `outbound_messages`. */
interface Outcome {
  channel: 'email' | 'sms';
  recipient: string;
  subject: string | null;
  body: string;
  accepted: boolean;
  error: string | null;
  providerId: string | null;
}

/** What the message is, for the logs. */
type MessageKind = 'purchase_link' | 'pledge_invitation' | 'pledge_reminder' | NoticeKind;

function pledgeKind(msg: PledgeMessage): MessageKind {
  return msg.kind === 'reminder' ? 'pledge_reminder' : 'pledge_invitation';
}

/** The purchase a message is about (`outbound_messages` references it). */
type MessageIds = Pick<PurchaseLinkMessage, 'accountId' | 'purchaseId'>;

/** A built e-mail, whatever the template. */
type EmailContent = Pick<PurchaseLinkEmail, 'subject' | 'text' | 'html'>;

/**
 * Sends shoppers their messages through the configured mail transport and SMS gateway, and
 * records every attempt, with its outcome, in `outbound_messages` (the audit trail and the
 * sandbox inbox).
 *
 * Call it after the purchase's transaction has committed, never inside it: the row references
 * the purchase, and on PGlite a query outside an open transaction waits for it forever.
 */
export class OutboundMessenger implements Messenger {
  private readonly clock: Clock;

  constructor(private readonly deps: OutboundMessengerDeps) {
    this.clock = deps.clock ?? { now: () => new Date() };
  }

  async sendPurchaseLinkEmail(to: string, msg: PurchaseLinkMessage): Promise<boolean> {
    return this.sendEmail(to, msg, 'purchase_link', () => purchaseLinkEmail(msg));
  }

  async sendPurchaseLinkSms(to: string, msg: PurchaseLinkMessage): Promise<boolean> {
    return this.sendSms(to, msg, 'purchase_link', () => purchaseLinkSms(msg));
  }

  async sendPledgeEmail(to: string, msg: PledgeMessage): Promise<boolean> {
    return this.sendEmail(to, msg, pledgeKind(msg), () => pledgeEmail(msg));
  }

  async sendPledgeSms(to: string, msg: PledgeMessage): Promise<boolean> {
    return this.sendSms(to, msg, pledgeKind(msg), () => pledgeSms(msg));
  }

  async sendNoticeEmail(to: string, notice: ShopperNotice): Promise<boolean> {
    return this.sendEmail(to, notice, notice.kind, () => noticeEmail(notice), notice.key);
  }

  async sendNoticeSms(to: string, notice: SmsNotice): Promise<boolean> {
    return this.sendSms(to, notice, notice.kind, () => noticeSms(notice), notice.key);
  }

  /**
   * Sends one e-mail and records it. `compose` builds the content (a template); if it throws,
   * the attempt is recorded as not sent. The content is built before the address is checked, so
   * that a refused address still records what would have been sent. Never throws.
   */
  private async sendEmail(to: string, ids: MessageIds, kind: MessageKind, compose: () => EmailContent, key?: string): Promise<boolean> {
    const recipient = to.trim();
    let outcome: Outcome;
    let claimed: string | undefined;
    try {
      const mail = compose();
      const base = { channel: 'email' as const, recipient, subject: mail.subject, body: mail.text };
      if (!isEmailAddress(recipient)) {
        outcome = { ...base, accepted: false, error: 'invalid e-mail address', providerId: null };
      } else {
        if (key !== undefined) {
          claimed = await this.claim(ids, kind, key, base);
          if (!claimed) return false;
        }
        const result = await this.deps.mailer.send({ to: recipient, subject: mail.subject, text: mail.text, html: mail.html });
        outcome = { ...base, accepted: result.accepted, error: result.accepted ? null : (result.error ?? 'not accepted'), providerId: result.messageId ?? null };
      }
    } catch (err) {
      outcome = { channel: 'email', recipient, subject: null, body: '', accepted: false, error: `could not build the message: ${errorText(err)}`, providerId: null };
    }
    return this.finish(ids, kind, outcome, claimed === undefined ? key : { claimed });
  }

  /**
   * A keyed message is sent at most once: its row is written first, under its key, with the
   * outcome still unknown; only the writer of that row sends. Answers the row's id, or undefined
   * when the key was already claimed (sent, or being sent, by another process or an earlier
   * run) or the row could not be written (then nothing is sent: a receipt is never sent twice).
   */
  private async claim(msg: MessageIds, kind: MessageKind, key: string, o: Pick<Outcome, 'channel' | 'recipient' | 'subject' | 'body'>): Promise<string | undefined> {
    const id = newUuid();
    const fields = { account_id: msg.accountId, purchase_id: msg.purchaseId, message: kind, channel: o.channel };
    try {
      const record = { accountId: msg.accountId, purchaseId: msg.purchaseId, channel: o.channel, recipient: o.recipient, subject: o.subject, body: o.body };
      if (await claimMessage(this.deps.db, id, record, key, this.clock.now())) return id;
      this.log('info', fields, 'message already sent: not sent again');
    } catch (err) {
      this.log('error', { ...fields, err }, 'could not record an outbound message: not sent');
    }
    return undefined;
  }

  private log(level: 'info' | 'error', fields: object, message: string): void {
    try {
      this.deps.logger[level](fields, message);
    } catch {
      // A broken log stream must not change the answer.
    }
  }

  /** Sends one SMS and records it; as {@link sendEmail} (a keyed one at most once), for an E.164 phone number. Never throws. */
  private async sendSms(to: string, ids: MessageIds, kind: MessageKind, compose: () => string, key?: string): Promise<boolean> {
    const phone = normalizePhone(to);
    const recipient = phone ?? to.trim();
    let outcome: Outcome;
    let claimed: string | undefined;
    try {
      const text = compose();
      const base = { channel: 'sms' as const, recipient, subject: null, body: text };
      if (!phone) {
        outcome = { ...base, accepted: false, error: 'invalid phone number (international format with a leading +)', providerId: null };
      } else {
        if (key !== undefined) {
          claimed = await this.claim(ids, kind, key, base);
          if (!claimed) return false;
        }
        const result = await this.deps.sms.send(phone, text);
        outcome = { ...base, accepted: result.accepted, error: result.accepted ? null : (result.error ?? 'not accepted'), providerId: result.providerId ?? null };
      }
    } catch (err) {
      outcome = { channel: 'sms', recipient, subject: null, body: '', accepted: false, error: `could not build the message: ${errorText(err)}`, providerId: null };
    }
    return this.finish(ids, kind, outcome, claimed === undefined ? key : { claimed });
  }

  /** Logs and records the outcome; answers whether the message was accepted. Never throws. */
  private async finish(msg: MessageIds, kind: MessageKind, o: Outcome, key?: string | { claimed: string }): Promise<boolean> {
    const { logger } = this.deps;
    // Recipients are personal data: the log names the purchase, the message, the channel and the outcome only.
    const fields = { account_id: msg.accountId, purchase_id: msg.purchaseId, message: kind, channel: o.channel, accepted: o.accepted, provider_id: o.providerId ?? undefined };
    try {
      if (o.accepted) logger.info(fields, 'message sent');
      else logger.warn({ ...fields, error: o.error }, 'message not sent');
    } catch {
      // A broken log stream must not change the answer.
    }
    try {
      if (typeof key === 'object') {
        await settleMessage(this.deps.db, msg.accountId, key.claimed, o);
      } else {
        await recordMessage(this.deps.db, { ...o, accountId: msg.accountId, purchaseId: msg.purchaseId }, key ?? null, this.clock.now());
      }
    } catch (err) {
      try {
        logger.error({ ...fields, err }, 'could not record an outbound message');
      } catch {
        // idem
      }
    }
    return o.accepted;
  }
}
