import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { DEFAULT_MERCHANT_COUNTRY } from '../../../config.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { decimalAmount } from '../../../domain/money.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import { langOf } from '../../../i18n/lang.ts';
import type { Services } from '../../../services.ts';
import { createPluginPurchase } from '../../../use-cases/checkout/create-plugin-purchase.ts';
import { ApiError } from '../../errors.ts';
import type { App } from '../../types.ts';
import { TokenApiError } from '../schemas.ts';

const PaymentByTransferSchema = Type.Object(
  {
    purchase_uid: Type.String({ examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    reference: Type.Optional(Type.String({ description: 'The signed `reference`' })),
    amount_cents: Type.Integer({ description: 'What the shopper transfers, minor units' }),
    currency: Type.String({ examples: ['EUR'] }),
    state: Type.String({ description: 'Merchant API v1 state: `INITIALIZED` until the transfer is received' }),
    reused: Type.Boolean({ description: 'true: the unpaid purchase of an earlier call with the same offer, reference, amount and currency' }),
    bank_transfer: Type.Object(
      {
        iban: Type.String({ description: "The operator's account (OPERATOR_IBAN)" }),
        bic: Type.String(),
        beneficiary: Type.String({ description: "The account holder's name (OPERATOR_NAME)" }),
        amount_cents: Type.Integer(),
        currency: Type.String(),
        descriptor: Type.String({ description: "What the transfer's descriptor (remittance information) must carry: the purchase uid" }),
        instructions: Type.String({ description: 'The same, in one English sentence to show the shopper' }),
      },
      { title: 'BankTransferDetails' },
    ),
  },
  { title: 'PaymentByTransfer' },
);

/**
 * The direct call of the back, `GET|POST /api/payment_by_transfer?signature=<JWT>`
 * (docs/plugin-integration.md#the-direct-call-of-the-back): the direct call of the front's settings,
 * signed (mandatory), for a SHARED offer in transfer mode; the purchase is created (or the unpaid
 * one of the same call reused) and the answer tells the shopper where to send the bank transfer and
 * what its descriptor must say. The operator records the transfer when it arrives
 * (`chipin transfer received`), which validates the purchase.
 */
export function registerPaymentByTransfer(app: App, services: Services): void {
  const { config } = services;
  const deps = { ...services, merchantCountry: config.merchantCountry ?? DEFAULT_MERCHANT_COUNTRY };

  const handler = async (request: FastifyRequest) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const body = request.body as Record<string, unknown> | undefined;
    // POST may carry the signature in its JSON body instead of the query.
    const settings = query.signature === undefined && body?.signature !== undefined ? { signature: body.signature } : query;
    const bank = config.operatorDebtor;
    // Not offered by this deployment, whatever the call says: the route is as good as absent
    // (docs/money-operations.md#payment-by-transfer), not failing.
    if (!bank) throw new ApiError(404, 'not_found', "payment by transfer is not offered here: the operator's bank account is not configured");
    // Real time for the signature's exp / nbf only (the shop signs with its clock); the purchase is
    // dated on the service clock (`deps.clock`, the sandbox's moved or not: docs/jobs-and-clock.md).
    const outcome = await createPluginPurchase(deps, { query: settings, embed: false, byTransfer: true, fallbackLang: 'en_GB', now: new Date() });
    if (outcome.kind !== 'ready' && outcome.lang) request.lang = langOf(outcome.lang);
    switch (outcome.kind) {
      case 'ready': {
        const { purchase } = outcome;
        const uid = toPublicId('pur', purchase.id);
        const amount = `${decimalAmount(purchase.amountCents, purchase.currency)} ${purchase.currency}`;
        return {
          purchase_uid: uid,
          ...(purchase.ref !== null ? { reference: purchase.ref } : {}),
          amount_cents: purchase.amountCents,
          currency: purchase.currency,
          state: V1_STATE[purchase.state],
          reused: outcome.reused,
          bank_transfer: {
            iban: bank.iban,
            bic: bank.bic,
            beneficiary: bank.holderName,
            amount_cents: purchase.amountCents,
            currency: purchase.currency,
            descriptor: uid,
            instructions: `Transfer exactly ${amount} to ${bank.holderName}, IBAN ${bank.iban}, BIC ${bank.bic}, with ${uid} in the transfer's descriptor: the purchase is paid once the transfer is received.`,
          },
        };
      }
      case 'already_paid':
        throw new ApiError(409, 'purchase_not_payable', 'this reference is already paid on this offer: nothing was created');
      case 'refused':
        if (outcome.notTransferMode) throw new ApiError(409, 'not_transfer_mode', outcome.message);
        if (outcome.field === 'signature') throw new ApiError(400, 'invalid_signature', outcome.message);
        throw new ApiError(400, 'invalid_request', outcome.message);
    }
  };

  const schema = {
    tags: ['Token API'],
    summary: 'Pay a purchase by bank transfer (direct call of the back)',
    description:
      'The direct call of the front\'s settings (docs/plugin-integration.md), signed: `signature`, an HS256 JWT of `{"data": {...settings}}` with the offer\'s secret, is mandatory and the only setting read ' +
      '(GET: in the query; POST: in the query or a JSON body `{"signature": …}`). `redirectUrl` and `cancelUrl` do not apply. The offer must be a SHARED offer in transfer mode. ' +
      'Creates the purchase, or answers the unpaid one of an earlier call with the same offer, reference, amount and currency, with the bank details the shopper transfers the amount to; ' +
      "the transfer's descriptor must carry the purchase uid. The purchase is paid when the operator records the transfer received.",
    security: [],
    querystring: Type.Object({ signature: Type.Optional(Type.String({ maxLength: 16_384 })) }, { additionalProperties: true }),
    response: {
      200: PaymentByTransferSchema,
      400: {
        ...TokenApiError,
        description:
          '`invalid_signature`: no `signature`, or not an HS256 JWT of the offer named (expired, not yet valid); `invalid_request`: a setting is wrong (the message names it)',
      },
      409: {
        ...TokenApiError,
        description: '`not_transfer_mode`: the offer is not in transfer mode; `purchase_not_payable`: the reference is already paid on that offer',
      },
      404: { ...TokenApiError, description: "`not_found`: payment by transfer is not offered here (the operator's bank account is not configured)" },
    },
  };
  app.get('/api/payment_by_transfer', { schema }, handler);
  app.post(
    '/api/payment_by_transfer',
    {
      // No body at all: the signature is in the query.
      preValidation: (request, _reply, done) => {
        if (request.body === undefined || request.body === null) request.body = {};
        done();
      },
      schema: { ...schema, body: Type.Object({ signature: Type.Optional(Type.String({ maxLength: 16_384 })) }, { additionalProperties: true }) },
    },
    handler,
  );
}
