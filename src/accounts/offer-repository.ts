import type { Sql } from '../db/database.ts';
import type { EditableTerms, Offer } from './offer.ts';

interface OfferRow {
  id: string;
  account_id: string;
  type: Offer['type'];
  installments: number;
  deferred_days: number;
  deposit_percent: number | null;
  max_balance_delay_days: number | null;
  currency: string;
  min_amount_cents: number;
  max_amount_cents: number;
  account_name: string;
  account_time_zone: string;
  account_country: string | null;
  account_language: string;
  psp: string;
  psp_account_id: string | null;
  payment_mode: Offer['paymentMode'];
  commission_bps: number;
  commission_fixed_cents: number;
  max_attempts: number;
  pot_deadline_hours: number;
  expiry_hours: number;
  fee_rate_bps: number;
  fixed_fee_cents: number;
  debit_rate_bps: number;
  funding_cap_cents: number | null;
  usury_ceiling_bps: number | null;
  psp_environment: 'test' | 'live' | null;
  credit_lender: string | null;
  withdrawal_days: number | null;
  country_code: string | null;
  css_url: string | null;
  gtu_url: string | null;
  gtu_label: string | null;
  use_3ds: Offer['use3ds'];
  leader_can_pay_alone: boolean;
  purchase_end_notification_url: string | null;
  send_confirmation_email: boolean;
  send_owed_share_reminder: boolean;
  hold_renewal_days: number;
}

const SELECT = `SELECT o.id, o.account_id, o.type, o.installments, o.deferred_days, o.deposit_percent, o.max_balance_delay_days, o.currency,
  o.min_amount_cents, o.max_amount_cents, a.name AS account_name, a.time_zone AS account_time_zone, a.country AS account_country, a.language AS account_language, o.psp, o.psp_account_id, o.payment_mode, o.commission_bps, o.commission_fixed_cents, o.max_attempts, o.pot_deadline_hours, o.expiry_hours,
  o.fee_rate_bps, o.fixed_fee_cents, o.debit_rate_bps, o.funding_cap_cents, o.usury_ceiling_bps,
  psa.environment AS psp_environment, o.credit_lender, o.withdrawal_days,
  o.country_code, o.css_url, o.gtu_url, o.gtu_label, o.use_3ds, o.leader_can_pay_alone, o.purchase_end_notification_url,
  o.send_confirmation_email, o.send_owed_share_reminder, o.hold_renewal_days
  FROM offers o JOIN accounts a ON a.id = o.account_id
  LEFT JOIN psp_accounts psa ON psa.id = o.psp_account_id`;
// By its id alone: an offer's PSP account is its merchant's or an operator's (account_id NULL), never
// another merchant's, which the database's trigger keeps (migration 056).

function toOffer(r: OfferRow): Offer {
  return {
    id: r.id,
    accountId: r.account_id,
    type: r.type,
    installments: r.installments,
    deferredDays: r.deferred_days,
    depositPercent: r.deposit_percent,
    maxBalanceDelayDays: r.max_balance_delay_days,
    currency: r.currency,
    minAmountCents: r.min_amount_cents,
    maxAmountCents: r.max_amount_cents,
    accountName: r.account_name,
    accountTimeZone: r.account_time_zone,
    accountCountry: r.account_country,
    accountLanguage: r.account_language,
    psp: r.psp,
    pspAccountId: r.psp_account_id,
    paymentMode: r.payment_mode,
    commissionBps: r.commission_bps,
    commissionFixedCents: r.commission_fixed_cents,
    maxAttempts: r.max_attempts,
    potDeadlineHours: r.pot_deadline_hours,
    expiryHours: r.expiry_hours,
    feeRateBps: r.fee_rate_bps,
    fixedFeeCents: r.fixed_fee_cents,
    debitRateBps: r.debit_rate_bps,
    fundingCapCents: r.funding_cap_cents,
    usuryCeilingBps: r.usury_ceiling_bps,
    pspEnvironment: r.psp_environment,
    creditLender: r.credit_lender,
    lender: r.credit_lender ?? r.account_name,
    withdrawalDays: r.withdrawal_days,
    countryCode: r.country_code,
    cssUrl: r.css_url,
    gtuUrl: r.gtu_url,
    gtuLabel: r.gtu_label,
    use3ds: r.use_3ds,
    leaderCanPayAlone: r.leader_can_pay_alone,
    purchaseEndNotificationUrl: r.purchase_end_notification_url,
    sendConfirmationEmail: r.send_confirmation_email,
    sendOwedShareReminder: r.send_owed_share_reminder,
    holdRenewalDays: r.hold_renewal_days,
  };
}

/** Every offer of the account, oldest first. */
export async function listOffers(sql: Sql, accountId: string): Promise<Offer[]> {
  const { rows } = await sql.query<OfferRow>(`${SELECT} WHERE o.account_id = $1 ORDER BY o.created_at, o.id`, [accountId]);
  return rows.map(toOffer);
}

/** The offer, its row locked until the transaction ends (an edit reads and writes it there). */
export async function lockOffer(tx: Sql, accountId: string, id: string): Promise<Offer | undefined> {
  const { rows } = await tx.query<OfferRow>(`${SELECT} WHERE o.account_id = $1 AND o.id = $2 FOR UPDATE OF o`, [accountId, id]);
  return rows[0] && toOffer(rows[0]);
}

export async function updateOfferTerms(tx: Sql, accountId: string, id: string, t: EditableTerms): Promise<void> {
  await tx.query(
    `UPDATE offers SET fee_rate_bps = $3, fixed_fee_cents = $4, min_amount_cents = $5, max_amount_cents = $6, expiry_hours = $7,
       pot_deadline_hours = $8, psp_account_id = $9, psp = $10, credit_lender = $11, withdrawal_days = $12,
       country_code = $13, css_url = $14, gtu_url = $15, gtu_label = $16, use_3ds = $17, leader_can_pay_alone = $18,
       purchase_end_notification_url = $19, send_confirmation_email = $20, send_owed_share_reminder = $21, hold_renewal_days = $22,
       funding_cap_cents = $23, deposit_percent = $24, max_balance_delay_days = $25 WHERE account_id = $1 AND id = $2`,
    [
      accountId,
      id,
      t.feeRateBps,
      t.fixedFeeCents,
      t.minAmountCents,
      t.maxAmountCents,
      t.expiryHours,
      t.potDeadlineHours,
      t.pspAccountId,
      t.psp,
      t.creditLender,
      t.withdrawalDays,
      t.countryCode,
      t.cssUrl,
      t.gtuUrl,
      t.gtuLabel,
      t.use3ds,
      t.leaderCanPayAlone,
      t.purchaseEndNotificationUrl,
      t.sendConfirmationEmail,
      t.sendOwedShareReminder,
      t.holdRenewalDays,
      t.fundingCapCents,
      t.depositPercent,
      t.maxBalanceDelayDays,
    ],
  );
}

/**
 * Sets the offer's payment mode, PSP account and commission (the operator's CLI:
 * src/use-cases/merchant-setup/offer-mode.ts); the database's trigger refuses a mode that disagrees with the
 * account's owner (migration 056).
 */
export async function setOfferPaymentMode(
  tx: Sql,
  accountId: string,
  id: string,
  o: Pick<Offer, 'paymentMode' | 'pspAccountId' | 'psp' | 'commissionBps' | 'commissionFixedCents'>,
): Promise<void> {
  await tx.query('UPDATE offers SET payment_mode = $3, psp_account_id = $4, psp = $5, commission_bps = $6, commission_fixed_cents = $7 WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
    o.paymentMode,
    o.pspAccountId,
    o.psp,
    o.commissionBps,
    o.commissionFixedCents,
  ]);
}

/** How many pots of the offer are collecting (SHARED, leader paid, not settled): their pledgers pay on the offer's PSP account. */
export async function openPotCount(tx: Sql, accountId: string, offerId: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM purchases WHERE account_id = $1 AND offer_id = $2 AND state = 'LEADER_PROCESSED'", [
    accountId,
    offerId,
  ]);
  return rows[0]!.n;
}

/** How many of the offer's purchases the leader has not paid yet (CREATED): their schedule still reads the offer (editOffer). */
export async function unpaidPurchaseCount(tx: Sql, accountId: string, offerId: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM purchases WHERE account_id = $1 AND offer_id = $2 AND state = 'CREATED'", [accountId, offerId]);
  return rows[0]!.n;
}

/** The account an offer belongs to (an offer never changes account). */
export async function offerAccountId(sql: Sql, id: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ account_id: string }>('SELECT account_id FROM offers WHERE id = $1', [id]);
  return rows[0]?.account_id;
}

/** One of the offers a new account starts with (src/accounts/default-offers.ts). */
export async function insertOffer(
  tx: Sql,
  o: {
    id: string;
    accountId: string;
    type: string;
    installments: number;
    deferredDays: number;
    depositPercent: number | null;
    maxBalanceDelayDays: number | null;
    feeRateBps: number;
    minAmountCents: number;
    maxAmountCents: number;
    signingSecretEnc: string;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO offers (id, account_id, type, installments, deferred_days, deposit_percent, max_balance_delay_days, fee_rate_bps, min_amount_cents, max_amount_cents, signing_secret_enc)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [o.id, o.accountId, o.type, o.installments, o.deferredDays, o.depositPercent, o.maxBalanceDelayDays, o.feeRateBps, o.minAmountCents, o.maxAmountCents, o.signingSecretEnc],
  );
}

/**
 * The sealed signing secrets of these offers (the back-mode notifications are signed with them),
 * with what else the dispatcher needs of them: their type and purchase end notification URL.
 */
export async function offerSigningSecrets(
  sql: Sql,
  ids: readonly string[],
): Promise<{ id: string; account_id: string; signing_secret_enc: string; type: string; purchase_end_notification_url: string | null }[]> {
  const { rows } = await sql.query<{ id: string; account_id: string; signing_secret_enc: string; type: string; purchase_end_notification_url: string | null }>(
    'SELECT id, account_id, signing_secret_enc, type, purchase_end_notification_url FROM offers WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return rows;
}
