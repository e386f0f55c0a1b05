import { Type } from 'typebox';
import { parsePublicId } from '../../../../domain/ids.ts';
import { ApiError, notFound } from '../../../errors.ts';

export const SECURITY = [{ apiKeyBasic: [] }];
export const AUTH_NOTE =
  'Admins only (docs/back-office.md#roles). HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';
export const invalid = (message: string) => new ApiError(400, 'invalid_request', message);

export const Payout = Type.Object(
  {
    id: Type.String({ description: 'The payout (`po_…`)', examples: ['po_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    currency: Type.String({ description: 'ISO 4217; amounts in its minor units' }),
    business_day: Type.String({ description: 'The day (in the account’s time zone) whose end the payout pays up to, `YYYY-MM-DD`' }),
    amount_cents: Type.Integer({ minimum: 1, description: 'The sum of its lines: what is transferred' }),
    line_count: Type.Integer({ minimum: 1 }),
    status: Type.Union([Type.Literal('created'), Type.Literal('exported'), Type.Literal('sent'), Type.Literal('returned')], {
      description: '`created`, `exported` (in the operator’s SEPA file), `sent` (transferred), `returned` (came back: owed again, in the next payout)',
    }),
    created_at: Type.String({ format: 'date-time' }),
    exported_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    returned_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'Payout' },
);

export const BankDetails = Type.Object(
  {
    holder_name: Type.String(),
    iban_masked: Type.String({ description: 'The IBAN’s country, check digits and last four characters only', examples: ['FR76 •••• •••• 0189'] }),
    bic: Type.String(),
    updated_at: Type.String({ format: 'date-time' }),
    payouts_held_until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'While the cooling-off after an IBAN change runs (docs/money-operations.md#bank-details): no payout is made before this time, unless the operator releases it first; null otherwise',
    }),
  },
  { title: 'PayoutBankDetails' },
);

/** The path's `po_…` id; anything else is a payout not found. */
export function payoutIdOf(raw: string): string {
  const id = parsePublicId('po', raw);
  if (!id) throw notFound('payout');
  return id;
}
