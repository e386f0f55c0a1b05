import type { ConnectorDefinition } from '../definition.ts';
import { baseUrlPer } from '../kit/connector-setup.ts';
import { FONDY_BASE_URLS, FONDY_HOSTS, FondyConnector } from './connector.ts';
import { FONDY_HOLD_DAYS } from './mapping.ts';

/**
 * Fondy, whose platform now runs as Flitt (same API, test merchant and test cards:
 * docs/psp/fondy.md), on the merchant's own account (back mode). The merchant id and the payment
 * key sign every request (SHA1); the same key signs Fondy's answers and callbacks.
 */
export const fondyDefinition: ConnectorDefinition = {
  name: 'fondy',
  label: 'Fondy (Flitt)',
  authorizationValidity: {
    default: FONDY_HOLD_DAYS,
    voidReleaseHours: null,
    source:
      'Fondy / Flitt: no hold validity documented, 7 days assumed (FONDY_HOLD_DAYS); a reversed hold is cancelled at once on Fondy’s side, the issuer’s release not documented',
    // `/api/recurring` with `preauth=Y` on the rectoken (docs.flitt.com: preauth on the saved-card order).
    offSessionHold: true,
  },
  environments: ['test', 'live'],
  credentialFields: [
    {
      name: 'merchant_id',
      secret: false,
      required: true,
      pattern: '[0-9]{1,12}',
      format: '1 to 12 digits',
      description: 'The merchant id: Fondy (Flitt) merchant portal → the merchant → Technical settings ("Merchant ID"). Test mode: the public test merchant 1549901.',
    },
    {
      name: 'payment_key',
      secret: true,
      required: true,
      pattern: '[A-Za-z0-9]{4,64}',
      format: '4 to 64 letters and digits',
      description:
        'The payment key of that merchant (Technical settings → "Payment key"), which signs the requests and Fondy’s answers and callbacks. Not the credit (payout) key.',
    },
  ],
  baseUrl: baseUrlPer(FONDY_BASE_URLS),
  // The API hosts Fondy and Flitt publish (./connector.ts); the ACS pages are the shopper's browser's business.
  publishedHosts: FONDY_HOSTS,
  // Card processing currencies of Flitt's list (GEL, USD, EUR, AMD, AZN, KZT, MDL, UZS) and those
  // its order parameters and Fondy's add (GBP, CZK, UAH): amounts in the ISO minor unit.
  currencies: { AMD: 1, AZN: 1, CZK: 1, EUR: 1, GBP: 1, GEL: 1, KZT: 1, MDL: 1, UAH: 1, USD: 1, UZS: 1 },
  create(account, context) {
    return new FondyConnector(account, context);
  },
};
