import { Type } from 'typebox';
import { TokenApiError } from '../schemas.ts';

const Pledge = Type.Object({
  id: Type.String({ examples: ['plg_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
  email: Type.Optional(Type.String()),
  phone_number: Type.Optional(Type.String()),
  amount_cents: Type.Integer(),
  url: Type.String({ format: 'uri' }),
  state: Type.String({ description: '`invited`, `paying`, `paid` or `closed`' }),
});

/** What both sandbox payment helpers answer: the purchase, its pledges, and a 3-D Secure challenge if any. */
export const PayResponse = Type.Object({
  purchase_uid: Type.String(),
  state: Type.String({ description: 'The purchase state as Merchant API v1 shows it' }),
  pledges: Type.Array(Pledge),
  challenge_url: Type.Optional(Type.String({ format: 'uri', description: 'Present (202) when the card asks for 3-D Secure: open it to complete or fail' })),
});
export const Card = Type.String({ pattern: '^[0-9 ]{12,23}$', description: 'A sandbox test card number (see docs/psp-connectors.md)', examples: ['4242 4242 4242 4242'] });

/** The helpers act with a test CVC and name, and a test expiry unless the body gives one. */
export const CardExpiry = Type.String({
  pattern: '^(0[1-9]|1[0-2])/20[0-9]{2}$',
  description: "The card's expiry, `MM/YYYY` (default: December, three years from now)",
  examples: ['12/2029'],
});

export const IdempotencyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        "Makes the call safe to retry (24 h, docs/api-conventions.md#idempotency-key): the same key and body answer the first call's outcome; " +
        'a retry after a 503 or no answer resolves the payment the first call left in doubt and answers its outcome, never charging twice',
    }),
  ),
});
export const KEY_409 = '`idempotency_key_in_use`: a call with this Idempotency-Key is still running';
export const KEY_422 = { ...TokenApiError, description: 'Idempotency-Key used with another body' };
