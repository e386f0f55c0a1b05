import { lockOffer, offerAccountId, openPotCount, setOfferPaymentMode } from '../../accounts/offer-repository.ts';
import type { Offer } from '../../accounts/offer.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import { parsePublicId, toPublicId } from '../../domain/ids.ts';
import { findOperatorPspAccount, findPspAccount } from '../../psp-accounts/psp-account-repository.ts';
import { currencyRefusal } from '../../psp/definition.ts';
import { DEFAULT_PSP } from '../../psp/registry.ts';
import type { PspAccountDeps } from './psp-accounts.ts';

/**
 * The operator sets an offer's payment mode (docs/money-operations.md#transfer-mode), from its CLI
 * only (`chipin offer set-mode`): `transfer`, the shoppers pay on one of the operator's collecting
 * accounts (or the built-in sandbox PSP, outside production) and the operator owes the merchant
 * its validated purchases less the commission set here; `back`, they pay on the merchant's own PSP
 * account (or the built-in sandbox), with no commission.
 */

/** The largest fixed commission, in minor units (1,000,000.00): high enough for any price list, low enough to stop a typo. */
const COMMISSION_FIXED_MAX = 100_000_000;

export interface OfferModeInput {
  mode: 'back' | 'transfer';
  /** `psa_…`: an operator's collecting account (transfer) or one of the merchant's own (back); null: the built-in sandbox PSP. */
  pspAccountId: string | null;
  /** Transfer mode only: the operator's commission, basis points of each validated purchase (0 to 10,000) plus a fixed part. Default 0. */
  commissionBps?: number;
  commissionFixedCents?: number;
}

export type OfferModeOutcome =
  | { kind: 'ok'; offer: Offer; accountId: string }
  | { kind: 'not_found'; what: 'offer' | 'PSP account' }
  /** `field` is the CLI option that breaks a rule. */
  | { kind: 'invalid'; field: string; message: string };

type Invalid = Extract<OfferModeOutcome, { kind: 'invalid' }>;
const invalid = (field: string, message: string): Invalid => ({ kind: 'invalid', field, message });

function checkCommission(input: OfferModeInput): Invalid | undefined {
  const bps = input.commissionBps ?? 0;
  const fixed = input.commissionFixedCents ?? 0;
  if (input.mode === 'back') {
    if (bps !== 0) return invalid('commission-bps', 'only a transfer-mode offer has a commission');
    if (fixed !== 0) return invalid('commission-fixed-cents', 'only a transfer-mode offer has a commission');
    return undefined;
  }
  if (!Number.isSafeInteger(bps) || bps < 0 || bps > 10_000) return invalid('commission-bps', 'must be a whole number of basis points between 0 and 10000');
  if (!Number.isSafeInteger(fixed) || fixed < 0 || fixed > COMMISSION_FIXED_MAX)
    return invalid('commission-fixed-cents', `must be a whole number of minor units between 0 and ${COMMISSION_FIXED_MAX}`);
  return undefined;
}

/** How the audit names a PSP account: a merchant's own by its id, an operator's as such (a merchant never sees the operator's ids). */
function auditedAccount(o: Pick<Offer, 'paymentMode' | 'pspAccountId'>): string {
  if (o.pspAccountId === null) return 'sandbox';
  return o.paymentMode === 'transfer' ? 'operator' : toPublicId('psa', o.pspAccountId);
}

/**
 * Sets the offer's mode, PSP account and commission: checked, written and audited (`offer_update`,
 * actor `cli`, each changed setting from → to) in one transaction under the offer's row lock. A
 * change of mode is refused while a pot of the offer is collecting (its pledgers pay on the offer's
 * PSP account of the moment, its money would land on two accounts booked in one mode); a purchase
 * not paid yet takes the offer's mode when its leader's checkout starts. This process's offer cache
 * is dropped; the server's see it within their cache's time (5 s).
 */
export async function setOfferMode(deps: PspAccountDeps, merchantUid: string, input: OfferModeInput): Promise<OfferModeOutcome> {
  const id = parsePublicId('mer', merchantUid);
  const accountId = id && (await offerAccountId(deps.db, id));
  if (!id || !accountId) return { kind: 'not_found', what: 'offer' };
  const bad = checkCommission(input);
  if (bad) return bad;
  const accountField = input.mode === 'transfer' ? 'operator-account' : 'psp-account';
  const outcome = await deps.db.transaction(async (tx): Promise<OfferModeOutcome> => {
    const offer = await lockOffer(tx, accountId, id);
    if (!offer) return { kind: 'not_found', what: 'offer' };
    let psp = { pspAccountId: null as string | null, psp: DEFAULT_PSP };
    if (input.pspAccountId === null) {
      if (deps.deployment === 'production') return invalid(accountField, 'the built-in sandbox PSP is refused in production: name a PSP account');
    } else {
      const psaId = parsePublicId('psa', input.pspAccountId);
      // Transfer: an operator's collecting account; back: the merchant's own, never another's.
      const row = psaId && (input.mode === 'transfer' ? await findOperatorPspAccount(tx, psaId) : await findPspAccount(tx, accountId, psaId));
      if (!psaId || !row) return { kind: 'not_found', what: 'PSP account' };
      const definition = deps.psps.definition(row.psp);
      const refused = definition && currencyRefusal(definition, offer.currency);
      if (refused) return invalid(accountField, refused);
      psp = { pspAccountId: psaId, psp: row.psp };
    }
    if (input.mode !== offer.paymentMode && offer.type === 'SHARED') {
      const pots = await openPotCount(tx, accountId, offer.id);
      if (pots > 0) return invalid('mode', `${pots} pot(s) of this offer are collecting: their pledgers pay on the offer's PSP account; retry once they are settled`);
    }
    const next: Offer = {
      ...offer,
      ...psp,
      paymentMode: input.mode,
      commissionBps: input.mode === 'transfer' ? (input.commissionBps ?? 0) : 0,
      commissionFixedCents: input.mode === 'transfer' ? (input.commissionFixedCents ?? 0) : 0,
    };
    await setOfferPaymentMode(tx, accountId, offer.id, next);
    const settings = {
      payment_mode: [offer.paymentMode, next.paymentMode],
      psp_account: [auditedAccount(offer), auditedAccount(next)],
      psp: [offer.psp, next.psp],
      commission_bps: [offer.commissionBps, next.commissionBps],
      commission_fixed_cents: [offer.commissionFixedCents, next.commissionFixedCents],
    } as const;
    const changed = Object.entries(settings).filter(([, [from, to]]) => from !== to);
    if (changed.length > 0) {
      const details = Object.fromEntries(changed.map(([k, [from, to]]) => [k, { from, to }]));
      await recordAudit(tx, { accountId, actor: { label: 'cli' }, action: 'offer_update', subject: toPublicId('mer', offer.id), details });
    }
    return { kind: 'ok', offer: next, accountId };
  });
  if (outcome.kind === 'ok') {
    deps.offers.forget(accountId);
    deps.logger.info({ account_id: accountId, merchant_uid: merchantUid, payment_mode: input.mode }, 'offer payment mode set');
  }
  return outcome;
}
