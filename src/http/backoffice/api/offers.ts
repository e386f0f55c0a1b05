import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { CREDIT_LENDER_MAX, editOffer, OFFER_BOUNDS } from '../../../use-cases/merchant-setup/edit-offer.ts';
import { GTU_LABEL_MAX, PARAMETER_BOUNDS, PARAMETER_URL_MAX, USE_3DS } from '../../../use-cases/merchant-setup/offer-parameters.ts';
import { listOffersWithPsp } from '../../../use-cases/merchant-setup/psp-accounts.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { App } from '../../types.ts';
import { BackofficeErrors } from './webhook.ts';
import { OFFER_TYPES } from '../../../domain/offer-terms.ts';
import { TokenApiError } from '../../routes/schemas.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T, description: string) => Type.Union([t, Type.Null()], { description });

/**
 * The merchant parameters of the original interface (docs/back-office.md#merchant-parameters-of-the-original-interface):
 * what they mean, shared by the offer's schema and the PATCH body's.
 */
const PARAMETER_DOCS = {
  country_code:
    "Where national phone numbers of this offer's purchases are read when the purchase names no country (ISO 3166 alpha-2 with a telephone numbering plan; lower case accepted); null: the account's country, else the deployment's",
  css_url: "A stylesheet linked on this offer's hosted pages (https only in production); it may restyle them, never run script (docs/security.md#merchant-stylesheets); null: none",
  gtu_url: "SHARED offers: the merchant's terms of use, linked by the pay button of the offer's pages; null: no link",
  gtu_label: "SHARED offers: the words of that link; null: Chipin's wording",
  use_3ds: 'When 3-D Secure is asked for: always, never (unless the card requires it), auto (the default)',
  leader_can_pay_alone: 'SHARED offers: whether the purchase goes ahead when the leader names no friend (true by default)',
  purchase_end_notification_url: "SHARED offers: told {reference, uid} when a pot ends (the webhook URL's rule: https and no internal address in production); null: nothing sent",
  send_confirmation_email: 'Whether the shopper is e-mailed a confirmation at the end of the payment (true by default)',
  send_owed_share_reminder: 'INSTALLMENTS, DEFERRED and DOWN_PAYMENT offers: whether the shopper is reminded before a share is debited (true by default)',
  hold_renewal_days:
    'Days after it was placed when a card hold that must outlive its authorisation is renewed at the latest; one its PSP lets lapse sooner is still renewed a day before it lapses (docs/money-operations.md#re-authorisation). 7 by default',
  funding_cap_cents:
    'INSTALLMENTS, DEFERRED and DOWN_PAYMENT offers: the funding limit, the largest credit on one purchase (what is not paid at checkout), in minor units; null: none',
  deposit_percent:
    'DOWN_PAYMENT offers (required there, null on the others): the deposit captured at checkout, in percent of the amount, rounded half up to the cent (docs/schedules.md#down-payment)',
  max_balance_delay_days:
    "DOWN_PAYMENT offers (required there, null on the others): the most days from a purchase's creation to its balance's due date, the date used when the purchase asks none",
} as const;

const OfferPsp = Type.Object(
  {
    merchant_uid: Type.String({ examples: ['mer_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    type: Type.String({ enum: [...OFFER_TYPES] }),
    installments: Type.Integer(),
    deferred_days: Type.Integer(),
    currency: Type.String(),
    psp: Type.String({ description: 'The connector its payments run on' }),
    psp_account_id: Type.Union([Type.String(), Type.Null()], {
      description: "The account's PSP account it pays through (back mode); null: the built-in sandbox PSP, or in transfer mode the operator's collecting account (not shown)",
    }),
    payment_mode: Type.String({
      enum: ['back', 'transfer'],
      description:
        "Read-only, set by the operator: back, the shoppers pay on the account's PSP account (or the built-in sandbox); transfer, they pay on the operator's collecting account and the operator owes the account its validated purchases less its commission, paid out by bank transfer (docs/money-operations.md#transfer-mode)",
    }),
    commission_bps: Type.Integer({ description: "Read-only: the operator's commission in transfer mode, basis points of each validated purchase's amount (0 in back mode)" }),
    commission_fixed_cents: Type.Integer({ description: "Read-only: the fixed part of the operator's commission per validated purchase, minor units (0 in back mode)" }),
    fee_rate_bps: Type.Integer({ description: 'Fee as a share of the amount, in basis points (150 = 1.50 %), on the first installment (docs/schedules.md)' }),
    fixed_fee_cents: Type.Integer({ description: 'Flat fee added to the rate-based fee, in minor units' }),
    min_amount_cents: Type.Integer({ description: 'Smallest purchase amount, in minor units (inclusive)' }),
    max_amount_cents: Type.Integer({ description: 'Largest purchase amount, in minor units (inclusive)' }),
    expiry_hours: Type.Integer({ description: 'An unpaid (CREATED) purchase expires this long after its creation' }),
    pot_deadline_hours: Type.Integer({ description: "SHARED: how long pledgers have to pay, from the leader's payment" }),
    credit_lender: Type.Union([Type.String(), Type.Null()], {
      description: "Credit offers: the lender's identity shoppers are shown; null: the deployment's CREDIT_LENDER, else the merchant (docs/schedules.md#credit-mentions)",
    }),
    withdrawal_days: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "Credit offers: the right of withdrawal's period shoppers are shown, in calendar days, 0 for none; null: Chipin's rule, 14 days unless the credit is free and repaid within 3 months (docs/schedules.md#credit-mentions)",
    }),
    country_code: nullable(Type.String(), PARAMETER_DOCS.country_code),
    css_url: nullable(Type.String(), PARAMETER_DOCS.css_url),
    gtu_url: nullable(Type.String(), PARAMETER_DOCS.gtu_url),
    gtu_label: nullable(Type.String(), PARAMETER_DOCS.gtu_label),
    use_3ds: Type.String({ enum: [...USE_3DS], description: PARAMETER_DOCS.use_3ds }),
    leader_can_pay_alone: Type.Boolean({ description: PARAMETER_DOCS.leader_can_pay_alone }),
    purchase_end_notification_url: nullable(Type.String(), PARAMETER_DOCS.purchase_end_notification_url),
    send_confirmation_email: Type.Boolean({ description: PARAMETER_DOCS.send_confirmation_email }),
    send_owed_share_reminder: Type.Boolean({ description: PARAMETER_DOCS.send_owed_share_reminder }),
    hold_renewal_days: Type.Integer({ description: PARAMETER_DOCS.hold_renewal_days }),
    funding_cap_cents: nullable(Type.Integer(), PARAMETER_DOCS.funding_cap_cents),
    deposit_percent: nullable(Type.Integer(), PARAMETER_DOCS.deposit_percent),
    max_balance_delay_days: nullable(Type.Integer(), PARAMETER_DOCS.max_balance_delay_days),
  },
  { title: 'OfferPsp' },
);

/**
 * Back office: the account's offers, their editable terms (docs/back-office.md#editing-an-offer)
 * and the PSP account each pays through (back mode, docs/psp-connectors.md#psp-accounts).
 */
export function registerBackofficeOffers(app: App, services: Services, guard: DashboardGuard): void {
  const deps = { ...services.pspAccounts, policy: services.deliveries.policy };

  app.get(
    '/api/backoffice/offers',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the offers and their PSP accounts',
        description: `${AUTH_NOTE} Every offer of the account with the PSP account it pays through (null: the built-in sandbox PSP).`,
        security: SECURITY,
        response: { 200: Type.Array(OfferPsp), ...BackofficeErrors },
      },
    },
    async (request) => {
      const accountId = await guard.accountOf(request);
      return listOffersWithPsp(deps, accountId);
    },
  );

  app.patch(
    '/api/backoffice/offers/:merchant_uid',
    {
      schema: {
        tags: ['back office'],
        summary: "Edit an offer's terms, merchant parameters and PSP account",
        description:
          `${AUTH_NOTE} Every field is optional; one left out keeps its value. The type, currency, installments and deferred days define what was sold and are never edited; a DOWN_PAYMENT offer's deposit_percent and max_balance_delay_days are edited as its fees. ` +
          '`psp_account_id`: the offer pays through this PSP account from its next payment on (payments already made keep theirs for captures and refunds); `null` puts it back on the built-in sandbox PSP (refused in production). ' +
          "A transfer-mode offer's PSP account is the operator's: naming one is refused (400, field psp_account_id); its payment mode and commission are the operator's and not fields of this body (docs/money-operations.md#transfer-mode). " +
          "Fees and limits of an INSTALLMENTS, DEFERRED or DOWN_PAYMENT offer (a down payment's deposit and delay too) are refused (400) while one of its purchases awaits its leader's payment: that purchase's schedule is computed from them then, so an edit would change what it costs. " +
          "A credit offer must still be sellable at its minimum and its maximum (usury ceiling, funding cap: the schedule simulation's rules). " +
          'New expiry hours apply to purchases created afterwards, a new pot deadline to pots opened afterwards. ' +
          'The merchant parameters of the original interface (country_code to max_balance_delay_days: docs/back-office.md#merchant-parameters-of-the-original-interface) are edited here too; one that only a SHARED (or only a credit, or only a DOWN_PAYMENT) offer uses is refused on the other kinds unless sent with its unset value. ' +
          'Each edit is audited (`offer_update`; of the purchase end notification URL only its host). ' +
          'Other server processes see an edit within 5 seconds (their offer cache).',
        security: SECURITY,
        params: Type.Object({ merchant_uid: Type.String({ maxLength: 64 }) }),
        body: Type.Object(
          {
            psp_account_id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
            fee_rate_bps: Type.Optional(Type.Integer({ minimum: OFFER_BOUNDS.fee_rate_bps.min, maximum: OFFER_BOUNDS.fee_rate_bps.max })),
            fixed_fee_cents: Type.Optional(Type.Integer({ minimum: OFFER_BOUNDS.fixed_fee_cents.min, maximum: OFFER_BOUNDS.fixed_fee_cents.max })),
            min_amount_cents: Type.Optional(Type.Integer({ minimum: OFFER_BOUNDS.min_amount_cents.min, maximum: OFFER_BOUNDS.min_amount_cents.max })),
            max_amount_cents: Type.Optional(Type.Integer({ minimum: OFFER_BOUNDS.max_amount_cents.min, maximum: OFFER_BOUNDS.max_amount_cents.max })),
            expiry_hours: Type.Optional(Type.Integer({ minimum: OFFER_BOUNDS.expiry_hours.min, maximum: OFFER_BOUNDS.expiry_hours.max })),
            pot_deadline_hours: Type.Optional(
              Type.Integer({ minimum: OFFER_BOUNDS.pot_deadline_hours.min, maximum: OFFER_BOUNDS.pot_deadline_hours.max, description: 'SHARED offers only' }),
            ),
            credit_lender: Type.Optional(
              Type.Union([Type.String({ minLength: 1, maxLength: CREDIT_LENDER_MAX }), Type.Null()], {
                description: "INSTALLMENTS, DEFERRED and DOWN_PAYMENT offers only: one line naming the lender (name, legal form, address, registration); null: the deployment's",
              }),
            ),
            withdrawal_days: Type.Optional(
              Type.Union([Type.Integer({ minimum: OFFER_BOUNDS.withdrawal_days.min, maximum: OFFER_BOUNDS.withdrawal_days.max }), Type.Null()], {
                description:
                  "INSTALLMENTS, DEFERRED and DOWN_PAYMENT offers only: the right of withdrawal's period in days, 0 for none (a credit outside the consumer-credit rules, L312-4); null: Chipin's rule",
              }),
            ),
            country_code: Type.Optional(nullable(Type.String({ minLength: 2, maxLength: 2 }), PARAMETER_DOCS.country_code)),
            css_url: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: PARAMETER_URL_MAX }), PARAMETER_DOCS.css_url)),
            gtu_url: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: PARAMETER_URL_MAX }), PARAMETER_DOCS.gtu_url)),
            gtu_label: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: GTU_LABEL_MAX }), PARAMETER_DOCS.gtu_label)),
            use_3ds: Type.Optional(Type.Union([Type.Literal('always'), Type.Literal('never'), Type.Literal('auto')], { description: PARAMETER_DOCS.use_3ds })),
            leader_can_pay_alone: Type.Optional(Type.Boolean({ description: PARAMETER_DOCS.leader_can_pay_alone })),
            purchase_end_notification_url: Type.Optional(nullable(Type.String({ minLength: 1, maxLength: PARAMETER_URL_MAX }), PARAMETER_DOCS.purchase_end_notification_url)),
            send_confirmation_email: Type.Optional(Type.Boolean({ description: PARAMETER_DOCS.send_confirmation_email })),
            send_owed_share_reminder: Type.Optional(Type.Boolean({ description: PARAMETER_DOCS.send_owed_share_reminder })),
            hold_renewal_days: Type.Optional(
              Type.Integer({ minimum: PARAMETER_BOUNDS.hold_renewal_days.min, maximum: PARAMETER_BOUNDS.hold_renewal_days.max, description: PARAMETER_DOCS.hold_renewal_days }),
            ),
            funding_cap_cents: Type.Optional(
              nullable(Type.Integer({ minimum: PARAMETER_BOUNDS.funding_cap_cents.min, maximum: PARAMETER_BOUNDS.funding_cap_cents.max }), PARAMETER_DOCS.funding_cap_cents),
            ),
            deposit_percent: Type.Optional(
              nullable(Type.Integer({ minimum: PARAMETER_BOUNDS.deposit_percent.min, maximum: PARAMETER_BOUNDS.deposit_percent.max }), PARAMETER_DOCS.deposit_percent),
            ),
            max_balance_delay_days: Type.Optional(
              nullable(
                Type.Integer({ minimum: PARAMETER_BOUNDS.max_balance_delay_days.min, maximum: PARAMETER_BOUNDS.max_balance_delay_days.max }),
                PARAMETER_DOCS.max_balance_delay_days,
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: OfferPsp,
          400: {
            ...TokenApiError,
            description:
              'Invalid input, naming the field: out of bounds, min above max, terms no purchase could be sold with, fees or limits locked by a purchase awaiting payment, a production offer without a PSP account',
          },
          404: { ...TokenApiError, description: 'No such offer, or no such PSP account, in this account' },
          ...BackofficeErrors,
        },
      },
    },
    async (request) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const outcome = await editOffer(deps, accountId, { userId, label: email }, request.params.merchant_uid, request.body);
      switch (outcome.kind) {
        case 'ok':
          return outcome.offer;
        case 'not_found':
          throw notFound(outcome.what);
        case 'invalid':
          throw new ApiError(400, 'invalid_request', `field ${outcome.field}: ${outcome.message}`);
      }
    },
  );
}
