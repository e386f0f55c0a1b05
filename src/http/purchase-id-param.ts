import { Type } from 'typebox';
import { parseEitherSpelling } from '../domain/ids.ts';
import { notFound } from './errors.ts';

/**
 * The `:id` of a purchase route: `pur_<uuid>` as the Token API shows it or the bare uuid as
 * Merchant API v1 does, so that an integration may pass either (docs/api-conventions.md#identifiers-and-tenancy).
 */
export const PurchaseIdParams = Type.Object({
  id: Type.String({ description: 'The purchase: the bare uuid or `pur_<uuid>`, either spelling', examples: ['pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
});

/** The purchase's uuid; a malformed id answers 404 like an unknown one. */
export function purchaseIdOf(value: string): string {
  const id = parseEitherSpelling('pur', value);
  if (!id) throw notFound('purchase');
  return id;
}
