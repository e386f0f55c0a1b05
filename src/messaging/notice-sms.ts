import { formatDateTime } from '../i18n/format.ts';
import type { SmsNotice } from './messenger.ts';
import { noticeValues, type NoticeValues } from './notice-values.ts';
import { firstFitting, shortenedTitle, smsOpening, smsSafe } from './templates.ts';
import type { MessageTexts } from './texts.ts';

/** The SMS of one notice for a title (shortened or empty to fit), with or without the thanks. */
type Build = (title: string, thanks?: boolean) => string;

/** What every notice's SMS is built from: its values, their words, GSM-7 amounts, the opening. */
interface SmsContext {
  v: NoticeValues;
  sms: MessageTexts['sms'];
  m(cents: number): string;
  opening: string;
}

/**
 * The SMS of a receipt or notice, for a shopper known only by a phone number: one GSM-7 segment
 * with a typical amount and title, opening with who sends it for which shop ({@link smsOpening};
 * the title is shortened, then left out, then the thanks, to fit). No link: the SMS says all
 * there is to know, and the page's link came with the invitation.
 */
export function noticeSms(n: SmsNotice): string {
  const v = noticeValues(n);
  const title = smsSafe(v.title);
  const c: SmsContext = { v, sms: v.words.sms, m: (cents) => smsSafe(v.m(cents)), opening: smsOpening(v.lang, smsSafe(v.merchant)) };
  const sentences = builder(n, c);
  const build: Build = (t, thanks) => smsSafe(sentences(t, thanks));
  return firstFitting([() => build(title), () => shortenedTitle(title, build), () => build(''), () => build('', false)]);
}

function builder(n: SmsNotice, c: SmsContext): Build {
  const { v, sms, m, opening } = c;
  switch (n.kind) {
    case 'pledge_receipt': {
      const share = m(n.chargedCents);
      const after = n.leftCents > 0 ? sms.pledgeReceipt.potOpen(m(n.leftCents), formatDateTime(n.deadline, v.lang, n.timeZone)) : sms.pledgeReceipt.potComplete;
      return (t, thanks = true) => `${sms.pledgeReceipt.paid(opening, thanks, share, t)} ${after}`;
    }
    case 'pot_complete': {
      const after = n.releasedCents > 0 ? sms.potComplete.released(m(n.releasedCents)) : sms.potComplete.nothingMore;
      return (t) => `${sms.potComplete.complete(opening, t)} ${after}`;
    }
    case 'rest_charged': {
      const rest = m(n.restCents);
      return (t) => sms.restCharged(opening, t, rest);
    }
    case 'installment_receipt':
    case 'precharge':
    case 'charge_failed':
      return installmentBuilder(n, c);
    case 'hold_renewal_failed': {
      const held = m(n.heldCents);
      const due = formatDateTime(n.dueAt, v.lang, n.timeZone);
      return (t) => sms.holdRenewalFailed(opening, held, t, due);
    }
    case 'rest_failed': {
      const rest = m(n.restCents);
      return (t) => sms.restFailed(opening, t, rest);
    }
    case 'refund':
      return refundBuilder(n, c);
  }
}

/** An installment's (or the deferred payment's, or the balance's) receipt, reminder or refusal. */
function installmentBuilder(n: Extract<SmsNotice, { kind: 'installment_receipt' | 'precharge' | 'charge_failed' }>, { v, sms, m, opening }: SmsContext): Build {
  const i = n.installment;
  const x = m(i.amountCents);
  const date = (iso: string) => v.date(iso);
  const last4 = n.card?.last4.replace(/\D/g, '').slice(-4);
  const card = last4 ? sms.card(last4) : v.t.anyCard;
  const part = (t: string) => sms.part(t, i);
  if (n.kind === 'installment_receipt') {
    const after = n.next ? sms.installmentReceipt.next(m(n.next.amountCents), date(n.next.dueDate)) : sms.installmentReceipt.paidInFull;
    return (t) => `${sms.installmentReceipt.charged(opening, x, card, part(t))} ${after}`;
  }
  if (n.kind === 'precharge') return (t) => sms.precharge(opening, x, card, date(i.dueDate), part(t));
  const after = n.retryOn ? sms.chargeFailed.retry(date(n.retryOn)) : sms.chargeFailed.last;
  return (t) => `${sms.chargeFailed.refused(opening, x, card, part(t))} ${after}`;
}

function refundBuilder(n: Extract<SmsNotice, { kind: 'refund' }>, { v, sms, m, opening }: SmsContext): Build {
  const back = m(n.refundCents);
  const net = m(n.chargedCents - n.refundedCents);
  const lowered = n.lowered && n.lowered.cents > 0 ? n.lowered : undefined;
  const next = lowered?.remaining[0];
  // What is left to pay after a lowering: the next charge, or nothing more.
  const after = !lowered ? [] : [next ? sms.refund.next(m(next.amountCents), v.date(next.dueDate)) : sms.refund.nothingMore];
  return (t) =>
    (n.refundCents > 0
      ? [sms.refund.refunded(opening, back, t, net), ...(lowered ? [sms.refund.lessToPay(m(lowered.cents)), ...after] : [])]
      : [sms.refund.loweredOnly(opening, m(lowered?.cents ?? 0), t), ...after]
    ).join(' ');
}
