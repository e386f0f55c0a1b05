import { lockOffer, unpaidPurchaseCount, updateOfferTerms } from '../../accounts/offer-repository.ts';
import type { EditableTerms, Offer } from '../../accounts/offer.ts';
import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import { formatIsoDate } from '../../domain/dates.ts';
import { parsePublicId, toPublicId } from '../../domain/ids.ts';
import { offerTerms } from '../../domain/offer-terms.ts';
import { computeSchedule, ScheduleError, type ScheduleErrorCode } from '../../domain/schedule.ts';
import { findPspAccount } from '../../psp-accounts/psp-account-repository.ts';
import { currencyRefusal } from '../../psp/definition.ts';
import { DEFAULT_PSP } from '../../psp/registry.ts';
import type { AddressPolicy } from '../../outbound/addresses.ts';
import { applyParameters, auditedValue, PARAMETER_FIELDS, type ParameterPatch, type ParameterRefusal } from './offer-parameters.ts';
import { offerView, type OfferPspView, type PspAccountDeps } from './psp-accounts.ts';

/**
 * What the back office may change on an offer, by its API name; a field left out keeps its value.
 * Type, currency, installments and deferred days define what was sold: they are never edited.
 */
export interface OfferPatch extends ParameterPatch {
  psp_account_id?: string | null;
  fee_rate_bps?: number;
  fixed_fee_cents?: number;
  min_amount_cents?: number;
  max_amount_cents?: number;
  expiry_hours?: number;
  pot_deadline_hours?: number;
  /** The lender shoppers are shown on this credit offer; null: the deployment's (docs/schedules.md#credit-mentions). */
  credit_lender?: string | null;
  /** The right of withdrawal's period in days on this credit offer, 0 for none; null: Chipin's rule. */
  withdrawal_days?: number | null;
}

/**
 * Inclusive bounds of each editable term. Fees: 20 % and 500.00 are far above any French 3x/4x
 * product, low enough to stop a typo (2000 for 20.00) from going live; amounts: 1 minor unit to
 * 1,000,000.00; delays: 1 hour to 30 days.
 */
export const OFFER_BOUNDS = {
  fee_rate_bps: { min: 0, max: 2_000 },
  fixed_fee_cents: { min: 0, max: 50_000 },
  min_amount_cents: { min: 1, max: 100_000_000 },
  max_amount_cents: { min: 1, max: 100_000_000 },
  expiry_hours: { min: 1, max: 720 },
  pot_deadline_hours: { min: 1, max: 720 },
  withdrawal_days: { min: 0, max: 30 },
} as const satisfies Record<Exclude<keyof OfferPatch, 'psp_account_id' | 'credit_lender' | keyof ParameterPatch>, { min: number; max: number }>;

/** The longest lender identity (name, legal form, address, registration), as the column allows. */
export const CREDIT_LENDER_MAX = 300;

/**
 * The terms a purchase not yet paid by its leader (CREATED) reads from the live offer: its
 * schedule and fees are computed when the leader pays (then stored in `installments`), and the
 * amount is checked against the limits again then. Changing them under such a purchase would
 * change what its leader pays, so they are locked while the offer has one (docs/back-office.md).
 */
const READ_BY_UNPAID: readonly (typeof EDITABLE)[number][] = [
  'fee_rate_bps',
  'fixed_fee_cents',
  'min_amount_cents',
  'max_amount_cents',
  'funding_cap_cents',
  'deposit_percent',
  'max_balance_delay_days',
];

/**
 * Why an edit is refused, as data: the back office says it in the page's language
 * (`offerRefusal` in src/http/backoffice/texts.ts); the API answers `message`, in English.
 */
export type OfferRefusal =
  | { code: 'not_integer' }
  | { code: 'out_of_range'; min: number; max: number }
  | { code: 'pot_deadline_shared_only' }
  | { code: 'credit_mentions_credit_only' }
  | { code: 'credit_lender_shape'; max: number }
  | { code: 'min_above_max'; min: number; max: number }
  | { code: 'unsellable'; amountCents: number; schedule: ScheduleErrorCode }
  | { code: 'sandbox_in_production' }
  /** A transfer-mode offer pays through the operator's collecting account: only the operator changes it (docs/money-operations.md#transfer-mode). */
  | { code: 'transfer_mode' }
  | { code: 'psp_currency'; psp: string; takes: string[]; currency: string }
  | { code: 'unpaid_purchases'; count: number }
  | ParameterRefusal;

/** What `editOffer` needs: the PSP accounts' deps, and the webhooks' address policy (the purchase end notification URL follows the webhook URL's rule). */
export type EditOfferDeps = PspAccountDeps & { policy: AddressPolicy };

export type EditOfferOutcome =
  { kind: 'ok'; offer: OfferPspView } | { kind: 'not_found'; what: 'offer' | 'PSP account' } | { kind: 'invalid'; field: string; message: string; refusal: OfferRefusal };

type Invalid = Extract<EditOfferOutcome, { kind: 'invalid' }>;
const invalid = (field: string, refusal: OfferRefusal, message: string): Invalid => ({ kind: 'invalid', field, message, refusal });

/** Every field an edit may change, as the API names it (and as `offer_update` lists them). */
const EDITABLE = [
  'psp_account_id',
  'fee_rate_bps',
  'fixed_fee_cents',
  'min_amount_cents',
  'max_amount_cents',
  'expiry_hours',
  'pot_deadline_hours',
  'credit_lender',
  'withdrawal_days',
  ...PARAMETER_FIELDS,
] as const satisfies readonly (keyof OfferPatch)[];

/** Integers within bounds, min ≤ max, the pot deadline on SHARED offers only; the first field that breaks a rule. */
function checkShape(offer: Offer, patch: OfferPatch, next: Offer): Invalid | undefined {
  for (const [field, b] of Object.entries(OFFER_BOUNDS) as [keyof typeof OFFER_BOUNDS, { min: number; max: number }][]) {
    const v = patch[field];
    if (v === undefined || v === null) continue;
    if (!Number.isSafeInteger(v)) return invalid(field, { code: 'not_integer' }, 'must be an integer');
    if (v < b.min || v > b.max) return invalid(field, { code: 'out_of_range', min: b.min, max: b.max }, `must be between ${b.min} and ${b.max}`);
  }
  if (patch.pot_deadline_hours !== undefined && offer.type !== 'SHARED')
    return invalid('pot_deadline_hours', { code: 'pot_deadline_shared_only' }, 'only a SHARED offer has a pot deadline');
  for (const field of ['credit_lender', 'withdrawal_days'] as const) {
    if (patch[field] !== undefined && offer.type === 'SHARED')
      return invalid(field, { code: 'credit_mentions_credit_only' }, 'only a credit offer (INSTALLMENTS, DEFERRED, DOWN_PAYMENT) shows credit mentions');
  }
  const lender = patch.credit_lender;
  if (lender !== undefined && lender !== null && (lender.trim() === '' || lender.length > CREDIT_LENDER_MAX || /[\r\n]/.test(lender))) {
    return invalid(
      'credit_lender',
      { code: 'credit_lender_shape', max: CREDIT_LENDER_MAX },
      `must be one line of 1 to ${CREDIT_LENDER_MAX} characters, or null for the deployment's lender`,
    );
  }
  if (next.minAmountCents > next.maxAmountCents) {
    const field = patch.min_amount_cents !== undefined ? 'min_amount_cents' : 'max_amount_cents';
    return invalid(
      field,
      { code: 'min_above_max', min: next.minAmountCents, max: next.maxAmountCents },
      `the minimum (${next.minAmountCents}) must not be above the maximum (${next.maxAmountCents})`,
    );
  }
  return undefined;
}

/**
 * The schedule rules the simulation applies (usury ceiling, funding cap, fees swallowing the
 * credit), at both limits on today's date: a credit offer must be able to sell its minimum and
 * its maximum. With a fixed fee the TAEG is highest at the minimum, so both ends cover the range.
 */
function checkSellable(next: Offer, patch: OfferPatch, today: string): Invalid | undefined {
  if (next.type === 'SHARED') return undefined;
  for (const amount of [next.minAmountCents, next.maxAmountCents]) {
    try {
      computeSchedule(offerTerms(next), amount, today);
    } catch (err) {
      if (!(err instanceof ScheduleError)) throw err;
      const feeField = patch.fixed_fee_cents !== undefined && patch.fee_rate_bps === undefined ? 'fixed_fee_cents' : 'fee_rate_bps';
      const field =
        err.code === 'usury_ceiling_exceeded'
          ? feeField
          : err.code === 'amount_above_funding_cap'
            ? patch.funding_cap_cents !== undefined
              ? 'funding_cap_cents'
              : 'max_amount_cents'
            : amount === next.minAmountCents
              ? 'min_amount_cents'
              : 'max_amount_cents';
      return invalid(field, { code: 'unsellable', amountCents: amount, schedule: err.code }, `no purchase of ${amount} could be sold with these terms: ${err.message}`);
    }
  }
  return undefined;
}

/**
 * Edits an offer's fees, limits, delays, PSP account and merchant parameters
 * (src/use-cases/merchant-setup/offer-parameters.ts): the one use case of
 * `PATCH /api/backoffice/offers/{merchant_uid}`, the Offers page and the CLI. Checked, written and
 * audited (`offer_update`, each changed field from → to) in one transaction, the offer's row
 * locked; a refusal names the field and changes nothing. This process's offer cache is dropped;
 * other processes see the edit when their copy expires (OfferCache's TTL, 5 s).
 */
export async function editOffer(deps: EditOfferDeps, accountId: string, actor: Actor, merchantUid: string, patch: OfferPatch): Promise<EditOfferOutcome> {
  const id = parsePublicId('mer', merchantUid);
  if (!id) return { kind: 'not_found', what: 'offer' };
  const outcome = await deps.db.transaction(async (tx): Promise<EditOfferOutcome> => {
    const offer = await lockOffer(tx, accountId, id);
    if (!offer) return { kind: 'not_found', what: 'offer' };
    let psp = { pspAccountId: offer.pspAccountId, psp: offer.psp };
    // A transfer-mode offer shows no PSP account (null): sending that back changes nothing.
    if (offer.paymentMode === 'transfer' && patch.psp_account_id !== undefined && patch.psp_account_id !== null) {
      return invalid(
        'psp_account_id',
        { code: 'transfer_mode' },
        "this offer is in transfer mode: it pays through the operator's collecting account, which only the operator changes (chipin offer set-mode)",
      );
    }
    if (patch.psp_account_id !== undefined && offer.paymentMode === 'back') {
      psp = { pspAccountId: null, psp: DEFAULT_PSP };
      if (patch.psp_account_id !== null) {
        const psaId = parsePublicId('psa', patch.psp_account_id);
        const row = psaId && (await findPspAccount(tx, accountId, psaId));
        if (!psaId || !row) return { kind: 'not_found', what: 'PSP account' };
        const definition = deps.psps.definition(row.psp);
        const refused = definition && currencyRefusal(definition, offer.currency);
        if (refused)
          return invalid('psp_account_id', { code: 'psp_currency', psp: definition.label, takes: Object.keys(definition.currencies ?? {}), currency: offer.currency }, refused);
        psp = { pspAccountId: psaId, psp: row.psp };
      }
      if (deps.deployment === 'production' && psp.psp === DEFAULT_PSP) {
        return invalid('psp_account_id', { code: 'sandbox_in_production' }, 'a production offer needs a PSP account (the built-in sandbox PSP is refused in production)');
      }
    }
    const parameters = applyParameters(offer, patch, deps);
    if (!('ok' in parameters)) return invalid(parameters.field, parameters.refusal, parameters.message);
    const terms: EditableTerms = {
      feeRateBps: patch.fee_rate_bps ?? offer.feeRateBps,
      fixedFeeCents: patch.fixed_fee_cents ?? offer.fixedFeeCents,
      minAmountCents: patch.min_amount_cents ?? offer.minAmountCents,
      maxAmountCents: patch.max_amount_cents ?? offer.maxAmountCents,
      expiryHours: patch.expiry_hours ?? offer.expiryHours,
      potDeadlineHours: patch.pot_deadline_hours ?? offer.potDeadlineHours,
      creditLender: patch.credit_lender === undefined ? offer.creditLender : (patch.credit_lender?.trim() ?? null),
      withdrawalDays: patch.withdrawal_days === undefined ? offer.withdrawalDays : patch.withdrawal_days,
      ...parameters.ok,
      ...psp,
    };
    const next: Offer = { ...offer, ...terms };
    const bad = checkShape(offer, patch, next) ?? checkSellable(next, patch, formatIsoDate(deps.clock.now()));
    if (bad) return bad;

    const before = offerView(offer);
    const after = offerView(next);
    const changed = EDITABLE.filter((k) => before[k] !== after[k]);
    const locked = offer.type === 'SHARED' ? undefined : changed.find((k) => READ_BY_UNPAID.includes(k));
    if (locked) {
      const unpaid = await unpaidPurchaseCount(tx, accountId, offer.id);
      if (unpaid > 0) {
        return invalid(
          locked,
          { code: 'unpaid_purchases', count: unpaid },
          `cannot change while ${unpaid} purchase(s) of this offer await their leader's payment: their schedule is computed from it then (retry once they are paid, aborted or expired)`,
        );
      }
    }
    if (changed.length === 0) return { kind: 'ok', offer: offerView(offer) };
    await updateOfferTerms(tx, accountId, offer.id, terms);
    const details = Object.fromEntries(changed.map((k) => [k, { from: auditedValue(k, before[k]), to: auditedValue(k, after[k]) }]));
    await recordAudit(tx, { accountId, actor, action: 'offer_update', subject: toPublicId('mer', offer.id), details });
    return { kind: 'ok', offer: offerView(next) };
  });
  if (outcome.kind === 'ok') {
    deps.offers.forget(accountId);
    deps.logger.info({ account_id: accountId, merchant_uid: merchantUid, fields: Object.keys(patch) }, 'offer edited');
  }
  return outcome;
}
