import type { Sql } from '../../db/database.ts';
import { paymentPageUrl, pledgePageUrl, spacePurchaseUrl } from '../../domain/links.ts';
import { LEADER_PURPOSES } from '../../domain/leader-plan.ts';
import { dueAt, retryDelayDays } from '../../domain/installment-rules.ts';
import { uncovered } from '../../domain/pot.ts';
import { addDays } from '../../domain/dates.ts';
import { scheduleJob } from '../../jobs/scheduler.ts';
import type { InstallmentRef, NoticeBase, OfferSummary, ShopperNotice, SmsNotice } from '../../messaging/messenger.ts';
import { offerSummary } from '../../messaging/offer-summary.ts';
import { installmentAttempts, planLines } from '../../payments/installment-repository.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import { chargedAndHeld, chargedPayments } from '../../payments/payment-figures-repository.ts';
import { savedCard } from '../../payments/payment-method-repository.ts';
import { findPayment, type PaymentRow } from '../../payments/payment-repository.ts';
import { LEADER_CARD_PURPOSES } from '../../payments/result-figures.ts';
import { findPledge, listPledges, type Pledge } from '../../payments/pledge-repository.ts';
import { messageLang } from '../../i18n/shopper-lang.ts';
import { findPurchase } from '../../purchases/purchase-repository.ts';
import { leaderDisplayName, type Purchase } from '../../purchases/purchase.ts';
import type { PaymentDeps } from '../deps.ts';

/**
 * Receipts and notices to shoppers by e-mail (docs/messaging.md, "E-mails and SMS over a
 * purchase's life"). Each is sent after the transaction that recorded the payment committed,
 * never inside it, and at most once: its message key (one per payment, installment or attempt)
 * is claimed in `outbound_messages` before the send. A send never throws and never changes the
 * payment's outcome; a failure is logged and recorded.
 */

export const PRECHARGE_NOTICE_JOB = 'notice.precharge';
/** The pre-charge notice goes this long before an off-session charge… */
const PRECHARGE_NOTICE_DAYS = 3;
/** …and not at all when the charge is closer than this (the checkout receipt already gave its date and amount). */
const PRECHARGE_MIN_LEAD_MS = 24 * 3_600_000;

type Notice<K extends ShopperNotice['kind']> = Extract<ShopperNotice, { kind: K }>;
type Distribute<T> = T extends unknown ? Omit<T, keyof NoticeBase> : never;

/** Whatever went wrong while gathering a notice's figures is logged, never thrown at the payment flow. */
async function safely(deps: PaymentDeps, what: string, ids: { accountId: string; purchaseId: string }, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    try {
      deps.logger.error({ err, account_id: ids.accountId, purchase_id: ids.purchaseId, message: what }, 'could not send a shopper notice');
    } catch {
      // A broken log stream must not change the answer.
    }
  }
}

/**
 * The fields every notice of this purchase shares, in its recipient's language: the leader's, or
 * `pledge`'s friend's (src/i18n/shopper-lang.ts).
 */
async function base(
  deps: PaymentDeps,
  purchase: Purchase,
  key: string,
  url: string,
  name: string | undefined,
  withCard: boolean,
  pledge?: Pledge,
): Promise<NoticeBase | undefined> {
  const offer = await deps.offers.byId(purchase.accountId, purchase.offerId);
  if (!offer) return undefined;
  const card = withCard ? await savedCard(deps.db, purchase.accountId, purchase.id) : undefined;
  return {
    key,
    accountId: purchase.accountId,
    purchaseId: purchase.id,
    language: messageLang(purchase, offer.accountLanguage, pledge),
    merchantName: offer.accountName,
    timeZone: offer.accountTimeZone,
    title: purchase.title,
    amountCents: purchase.amountCents,
    currency: purchase.currency,
    url,
    spaceUrl: spacePurchaseUrl(deps.publicUrl, purchase.id),
    ...(name ? { name } : {}),
    ...(card ? { card } : {}),
  };
}

/** To the leader (the purchase's client), when they have an address. */
async function toLeader(deps: PaymentDeps, purchase: Purchase, key: string, body: Distribute<ShopperNotice>): Promise<void> {
  const b = await base(deps, purchase, key, paymentPageUrl(deps.publicUrl, purchase.id), purchase.client.firstName ?? undefined, true);
  if (!b || !purchase.client.email) return;
  await deps.messenger.sendNoticeEmail(purchase.client.email, { ...b, ...body } as ShopperNotice);
}

/** To the leader by e-mail, or by SMS when they gave only a phone number (the notices that have an SMS form). */
async function toLeaderByAnyChannel(deps: PaymentDeps, purchase: Purchase, key: string, body: Distribute<SmsNotice>): Promise<void> {
  if (purchase.client.email) {
    await toLeader(deps, purchase, key, body);
    return;
  }
  if (!purchase.phoneNumber) return;
  const b = await base(deps, purchase, key, paymentPageUrl(deps.publicUrl, purchase.id), purchase.client.firstName ?? undefined, true);
  if (b) await deps.messenger.sendNoticeSms(purchase.phoneNumber, { ...b, ...body } as SmsNotice);
}

/**
 * Whether the leader's receipt is the credit's confirmation on a durable medium (its figures and
 * mentions: docs/schedules.md#credit-mentions), which the lender owes the borrower whatever the
 * merchant's `sendConfirmationEmail` (docs/messaging.md#the-merchants-confirmation-e-mail-and-owed-share-reminder).
 */
function isCreditDocument(summary: OfferSummary): boolean {
  return summary.type !== 'SHARED' && summary.credit.mentions !== undefined;
}

/**
 * The leader's receipt once the checkout is recorded (LEADER_PROCESSED, or SUCCESSFUL for a pot
 * paid alone): what was charged and what is held, read from the payments rows; the pot's
 * deadline and invitations, or the plan with its credit figures, or the deferred date. It is the
 * merchant's "confirmation e-mail": not sent when the offer's `sendConfirmationEmail` is off,
 * unless it confirms a credit. Key: `receipt:<checkout payment>`.
 */
export async function sendLeaderReceipt(deps: PaymentDeps, accountId: string, purchaseId: string, checkoutPaymentId: string): Promise<void> {
  await safely(deps, 'leader_receipt', { accountId, purchaseId }, async () => {
    const purchase = await findPurchase(deps.db, accountId, purchaseId);
    const state = await loadPayState(deps.db, accountId, purchaseId);
    const offer = purchase && (await deps.offers.byId(accountId, purchase.offerId));
    if (!purchase || !state || !offer) return;
    const summary = offerSummary(offer, purchase.amountCents, state.createdAt, state.requestedDates);
    if (!offer.sendConfirmationEmail && !isCreditDocument(summary)) return;
    const money = await chargedAndHeld(deps.db, accountId, purchaseId, LEADER_PURPOSES);
    const invited = state.potDeadlineAt ? (await listPledges(deps.db, accountId, purchaseId)).filter((p) => p.state !== 'draft') : [];
    const body: Distribute<Notice<'leader_receipt'>> = {
      kind: 'leader_receipt',
      ...money,
      offer: summary,
      ...(state.potDeadlineAt && invited.length > 0
        ? { pot: { deadline: state.potDeadlineAt, invited: invited.length, pledgedCents: invited.reduce((s, p) => s + p.amountCents, 0) } }
        : {}),
    };
    await toLeader(deps, purchase, `receipt:${checkoutPaymentId}`, body);
  });
}

/**
 * A pledger's receipt once their share is recorded as paid: by e-mail, or by SMS when the leader
 * gave only their phone number. Key: `receipt:<pledge payment>`.
 */
export async function sendPledgeReceipt(deps: PaymentDeps, accountId: string, pledgeId: string, paymentId: string): Promise<void> {
  const pledge = await findPledge(deps.db, accountId, pledgeId);
  if (!pledge || (!pledge.email && !pledge.phoneNumber)) return;
  await safely(deps, 'pledge_receipt', { accountId, purchaseId: pledge.purchaseId }, async () => {
    const purchase = await findPurchase(deps.db, accountId, pledge.purchaseId);
    const state = await loadPayState(deps.db, accountId, pledge.purchaseId);
    if (!purchase || !state?.potDeadlineAt) return;
    const b = await base(deps, purchase, `receipt:${paymentId}`, pledgePageUrl(deps.publicUrl, pledge.id), pledge.name ?? undefined, false, pledge);
    if (!b) return;
    const paid = (await listPledges(deps.db, accountId, pledge.purchaseId)).filter((p) => p.state === 'paid');
    const leftCents =
      state.state === 'LEADER_PROCESSED'
        ? uncovered(
            state.amountCents,
            state.leaderShareCents ?? 0,
            paid.map((p) => p.amountCents),
          )
        : 0;
    const inviterName = leaderDisplayName(purchase);
    const notice = { ...b, kind: 'pledge_receipt' as const, chargedCents: pledge.amountCents, inviterName, leftCents, deadline: state.potDeadlineAt };
    if (pledge.email) await deps.messenger.sendNoticeEmail(pledge.email, notice);
    else await deps.messenger.sendNoticeSms(pledge.phoneNumber!, notice);
  });
}

/**
 * Friends' shares covered the pot (SUCCESSFUL, the guarantee released): the leader is told, by
 * e-mail, or by SMS when they gave only a phone number. Called after the release, whoever closed
 * the pot (the last share, or the deadline finding it covered). Key: `pot-complete:<purchase>`.
 */
export async function sendPotCompleteNotice(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<void> {
  await safely(deps, 'pot_complete', { accountId, purchaseId }, async () => {
    const purchase = await findPurchase(deps.db, accountId, purchaseId);
    const state = await loadPayState(deps.db, accountId, purchaseId);
    if (!purchase || state?.state !== 'SUCCESSFUL') return;
    const guarantee = state.guaranteePaymentId ? await findPayment(deps.db, accountId, state.guaranteePaymentId) : undefined;
    // What the hold had not captured is what its release gave back to the card.
    const releasedCents = guarantee && ['authorized', 'voided', 'expired'].includes(guarantee.status) ? guarantee.amount_cents - guarantee.captured_cents : 0;
    await toLeaderByAnyChannel(deps, purchase, `pot-complete:${purchaseId}`, { kind: 'pot_complete', releasedCents });
  });
}

/** The installment, as the notices tell it, and the next one still to collect. */
async function installmentRef(
  deps: PaymentDeps,
  purchase: Pick<Purchase, 'accountId' | 'id' | 'offerId'>,
  installmentId: string,
): Promise<{ ref: InstallmentRef; next?: { dueDate: string; amountCents: number }; state: string } | undefined> {
  const lines = await planLines(deps.db, purchase.accountId, purchase.id);
  const line = lines.find((l) => l.id === installmentId);
  if (!line) return undefined;
  const next = lines.find((l) => l.index > line.index && l.state === 'scheduled');
  // A down payment's second line is its balance (docs/schedules.md#down-payment).
  const balance = line.index > 0 && (await deps.offers.byId(purchase.accountId, purchase.offerId))?.type === 'DOWN_PAYMENT';
  return {
    ref: { index: line.index, count: lines.length, dueDate: line.dueDate, amountCents: line.amountCents, ...(balance ? { balance: true as const } : {}) },
    state: line.state,
    ...(next ? { next: { dueDate: next.dueDate, amountCents: next.amountCents } } : {}),
  };
}

/**
 * After an installment (or the deferred payment) attempt was recorded: its receipt when paid
 * (key `installment-paid:<installment>`), or the failed-charge notice saying what happens next —
 * the next dunning try, or that the purchase failed (key `charge-failed:<installment>:<attempt>`).
 */
export async function sendCollectionNotice(
  deps: PaymentDeps,
  inst: { id: string; accountId: string; purchaseId: string; dueDate: string | Date },
  attempt: number,
  outcome: string,
): Promise<void> {
  if (outcome !== 'paid' && outcome !== 'retry_scheduled' && outcome !== 'failed') return;
  const { accountId, purchaseId } = inst;
  await safely(deps, outcome === 'paid' ? 'installment_receipt' : 'charge_failed', { accountId, purchaseId }, async () => {
    const purchase = await findPurchase(deps.db, accountId, purchaseId);
    const found = purchase && (await installmentRef(deps, purchase, inst.id));
    if (!purchase || !found) return;
    if (outcome === 'paid') {
      await toLeaderByAnyChannel(deps, purchase, `installment-paid:${inst.id}`, {
        kind: 'installment_receipt',
        installment: found.ref,
        ...(found.next ? { next: found.next } : {}),
      });
      return;
    }
    const retryIn = outcome === 'retry_scheduled' ? retryDelayDays(attempt) : undefined;
    await toLeaderByAnyChannel(deps, purchase, `charge-failed:${inst.id}:${attempt}`, {
      kind: 'charge_failed',
      installment: found.ref,
      ...(retryIn === undefined ? {} : { retryOn: addDays(found.ref.dueDate, retryIn), payUrl: spacePurchaseUrl(deps.publicUrl, purchaseId) }),
    });
  });
}

/** The pot's rest was refused at the deadline: the purchase failed. Key: `rest-failed:<purchase>`. */
export async function sendRestFailedNotice(deps: PaymentDeps, accountId: string, purchaseId: string, restCents: number): Promise<void> {
  await safely(deps, 'rest_failed', { accountId, purchaseId }, async () => {
    const purchase = await findPurchase(deps.db, accountId, purchaseId);
    if (purchase) await toLeaderByAnyChannel(deps, purchase, `rest-failed:${purchaseId}`, { kind: 'rest_failed', restCents });
  });
}

/**
 * The hold on the leader's card could not be renewed before it lapses
 * (docs/money-operations.md#re-authorisation). Key: `hold-renewal-failed:<hold payment>`.
 */
export async function sendHoldRenewalFailedNotice(
  deps: PaymentDeps,
  accountId: string,
  purchaseId: string,
  hold: { paymentId: string; heldCents: number; lapsesAt: Date; dueAt: Date },
): Promise<void> {
  await safely(deps, 'hold_renewal_failed', { accountId, purchaseId }, async () => {
    const purchase = await findPurchase(deps.db, accountId, purchaseId);
    if (!purchase) return;
    await toLeaderByAnyChannel(deps, purchase, `hold-renewal-failed:${hold.paymentId}`, {
      kind: 'hold_renewal_failed',
      heldCents: hold.heldCents,
      lapsesAt: hold.lapsesAt,
      dueAt: hold.dueAt,
    });
  });
}

/**
 * The pot's deadline charged the uncovered rest to the leader's card (from the hold, or afresh on
 * the saved card): what, and what their card was charged in all. Key: `rest-charged:<purchase>`.
 */
export async function sendRestChargedNotice(deps: PaymentDeps, accountId: string, purchaseId: string, restCents: number, fromHold: boolean): Promise<void> {
  await safely(deps, 'rest_charged', { accountId, purchaseId }, async () => {
    const purchase = await findPurchase(deps.db, accountId, purchaseId);
    if (!purchase) return;
    const { chargedCents } = await cardMoney(deps, accountId, purchaseId);
    await toLeaderByAnyChannel(deps, purchase, `rest-charged:${purchaseId}`, { kind: 'rest_charged', restCents, chargedCents, fromHold });
  });
}

/** Charged and refunded on one cardholder's payments of the purchase: the leader's card, or one pledge's. */
async function cardMoney(deps: PaymentDeps, accountId: string, purchaseId: string, pledgeId?: string): Promise<{ chargedCents: number; refundedCents: number }> {
  const payments = pledgeId
    ? (await chargedPayments(deps.db, accountId, purchaseId, ['pledge'])).filter((p) => p.pledgeId === pledgeId)
    : await chargedPayments(deps.db, accountId, purchaseId, LEADER_CARD_PURPOSES);
  return { chargedCents: payments.reduce((s, p) => s + p.chargedCents, 0), refundedCents: payments.reduce((s, p) => s + p.refundedCents, 0) };
}

/**
 * A refund notice to the leader (no pledge) or to one pledger, by e-mail, else SMS; the leader's
 * says too what the refund took off what they still owe (`loweredCents`), and what is left.
 */
async function sendRefundNotice(
  deps: PaymentDeps,
  purchase: Purchase,
  key: string,
  refundCents: number,
  reason: 'merchant' | 'given_back',
  pledgeId?: string,
  loweredCents = 0,
): Promise<void> {
  const money = await cardMoney(deps, purchase.accountId, purchase.id, pledgeId);
  const lowered =
    loweredCents > 0
      ? {
          cents: loweredCents,
          remaining: (await planLines(deps.db, purchase.accountId, purchase.id))
            .filter((l) => l.state === 'scheduled' && l.amountCents > 0)
            .map(({ dueDate, amountCents }) => ({ dueDate, amountCents })),
        }
      : undefined;
  const body = { kind: 'refund' as const, refundCents, reason, ...money, ...(lowered ? { lowered } : {}) };
  if (!pledgeId) {
    await toLeaderByAnyChannel(deps, purchase, key, body);
    return;
  }
  const pledge = await findPledge(deps.db, purchase.accountId, pledgeId);
  if (!pledge || (!pledge.email && !pledge.phoneNumber)) return;
  const b = await base(deps, purchase, key, pledgePageUrl(deps.publicUrl, pledge.id), pledge.name ?? undefined, false, pledge);
  if (!b) return;
  if (pledge.email) await deps.messenger.sendNoticeEmail(pledge.email, { ...b, ...body });
  else await deps.messenger.sendNoticeSms(pledge.phoneNumber!, { ...b, ...body });
}

/**
 * A merchant's refund reached its payers: each cardholder refunded (the leader, each pledger) is
 * told what came back to their card, and their charged, refunded and net; the leader is told too
 * when it lowered what they still owe (installments not collected yet, a deferred payment), with
 * what is left to collect — also when nothing went back to the card. Key:
 * `refund:<refund>:leader` or `refund:<refund>:<pledge>`.
 */
export async function sendRefundNotices(
  deps: PaymentDeps,
  accountId: string,
  purchaseId: string,
  refundId: string,
  to: { leaderCents: number; pledges: ReadonlyMap<string, number>; leaderLoweredCents: number },
): Promise<void> {
  await safely(deps, 'refund', { accountId, purchaseId }, async () => {
    const purchase = await findPurchase(deps.db, accountId, purchaseId);
    if (!purchase) return;
    if (to.leaderCents > 0 || to.leaderLoweredCents > 0)
      await sendRefundNotice(deps, purchase, `refund:${refundId}:leader`, to.leaderCents, 'merchant', undefined, to.leaderLoweredCents);
    for (const [pledgeId, cents] of to.pledges) if (cents > 0) await sendRefundNotice(deps, purchase, `refund:${refundId}:${pledgeId}`, cents, 'merchant', pledgeId);
  });
}

/**
 * A payment that took money after its purpose was gone was refunded (`giveBack`): its cardholder
 * is told. A hold merely voided took nothing and is not told. Key: `given-back:<payment>`.
 */
export async function sendGivenBackNotice(deps: PaymentDeps, payment: PaymentRow, refundCents: number): Promise<void> {
  const ids = { accountId: payment.account_id, purchaseId: payment.purchase_id };
  await safely(deps, 'refund', ids, async () => {
    const purchase = await findPurchase(deps.db, ids.accountId, ids.purchaseId);
    if (purchase) await sendRefundNotice(deps, purchase, `given-back:${payment.id}`, refundCents, 'given_back', payment.pledge_id ?? undefined);
  });
}

/**
 * The pre-charge notice of an installment or deferred payment still to collect, as a durable
 * job in the transaction that stores the plan: {@link PRECHARGE_NOTICE_DAYS} days before the due
 * date (midnight UTC, when the collection job runs); when that moment has passed already, the job
 * runs at once and {@link sendPreChargeNotice} decides.
 */
export async function schedulePreChargeNotice(tx: Sql, accountId: string, installment: { id: string; dueDate: string | Date }): Promise<void> {
  const runAt = dueAt(installment.dueDate, -PRECHARGE_NOTICE_DAYS);
  await scheduleJob(tx, { kind: PRECHARGE_NOTICE_JOB, key: `${PRECHARGE_NOTICE_JOB}:${installment.id}`, runAt, payload: { installmentId: installment.id }, accountId });
}

export type PreChargeOutcome = 'sent' | 'not_sent' | 'too_late' | 'not_due' | 'turned_off';

/**
 * The pre-charge notice job: to the leader, the date, the amount (fees included) and the card's
 * last four digits of the coming off-session charge. Not sent when the installment is no longer
 * to collect (paid, cancelled, purchase no longer open) or its first attempt was already made,
 * nor when the charge is less than {@link PRECHARGE_MIN_LEAD_MS} away (a due date close to the
 * checkout: its receipt said it; a sandbox clock jumped past it), nor when the offer's
 * `sendOwedShareReminder` is off. Key: `precharge:<installment>`,
 * so a job run twice, or by two processes, sends it once.
 */
export async function sendPreChargeNotice(deps: PaymentDeps, accountId: string, installmentId: string): Promise<PreChargeOutcome> {
  const row = await installmentAttempts(deps.db, accountId, installmentId);
  if (!row) return 'not_due';
  const purchaseId = row.purchaseId;
  const state = await loadPayState(deps.db, accountId, purchaseId);
  const purchase = await findPurchase(deps.db, accountId, purchaseId);
  const found = purchase && (await installmentRef(deps, purchase, installmentId));
  if (!state || !purchase || !found || state.state !== 'LEADER_PROCESSED' || found.state !== 'scheduled' || row.attempts > 0) return 'not_due';
  if (dueAt(found.ref.dueDate).getTime() - deps.clock.now().getTime() < PRECHARGE_MIN_LEAD_MS) return 'too_late';
  // The merchant's "owed share reminder", read when it is due: an offer that turned it off since the plan was stored sends none.
  if (!(await deps.offers.byId(accountId, purchase.offerId))?.sendOwedShareReminder) return 'turned_off';
  let sent = false;
  await safely(deps, 'precharge', { accountId, purchaseId }, async () => {
    const b = await base(deps, purchase, `precharge:${installmentId}`, paymentPageUrl(deps.publicUrl, purchaseId), purchase.client.firstName ?? undefined, true);
    if (!b) return;
    const notice = { ...b, kind: 'precharge' as const, installment: found.ref };
    // By e-mail, or by SMS to a leader who gave only a phone number.
    if (purchase.client.email) sent = await deps.messenger.sendNoticeEmail(purchase.client.email, notice);
    else if (purchase.phoneNumber) sent = await deps.messenger.sendNoticeSms(purchase.phoneNumber, notice);
  });
  return sent ? 'sent' : 'not_sent';
}
