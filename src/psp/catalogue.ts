/**
 * The PSPs a merchant may name, and how Chipin reaches each (docs/psp-connectors.md#the-psp-catalogue):
 * through a connector of this build, through Hyperswitch (an open-source orchestrator the merchant
 * runs or rents, reached by the `hyperswitch` connector), or not yet, with the reason. The README's
 * table is this list (test/docs/psp-catalogue.test.ts keeps them equal), `GET
 * /api/backoffice/psp_catalogue` serves it, and each connector of `GET /api/backoffice/psps` lists
 * the names it reaches.
 */
type CatalogueRoute = { kind: 'direct'; connector: string } | { kind: 'hyperswitch' } | { kind: 'not_yet'; reason: string; why: NotYetWhy };

/**
 * Why a PSP is not reached, as data, for a page to say in its language (`notReachedWhy` in
 * src/http/backoffice/texts.ts); `reason` is the same in English, for the API and the README.
 */
export type NotYetWhy =
  | { code: 'no_connector' }
  | { code: 'no_public_api' }
  /** A public reference exists, but what it publishes does not show every call the connector contract needs. */
  | { code: 'reference_incomplete' }
  /** Its public API cannot meet the connector contract (docs/psp-connectors.md#the-contract): what it lacks. */
  | { code: 'contract_gap'; lacks: readonly ContractNeed[] }
  /** Bought by `by` on `on` (a date or a year), and closed by it on `closed` if it was. */
  | { code: 'acquired'; by: string; on: string; closed?: string }
  | { code: 'hyperswitch_unverified'; hyperswitchConnector: string }
  | { code: 'other_api'; connector: string; hyperswitchConnector: string }
  | { code: 'not_in_build'; connector: string };

/** What the connector contract needs of a PSP's API that some public APIs lack. */
type ContractNeed = 'transaction_read' | 'idempotency';

export interface CatalogueEntry {
  /** As merchants know it. */
  name: string;
  route: CatalogueRoute;
}

const direct = (connector: string): CatalogueRoute => ({ kind: 'direct', connector });
const HYPERSWITCH: CatalogueRoute = { kind: 'hyperswitch' };
const notYet = (reason: string, why: NotYetWhy): CatalogueRoute => ({ kind: 'not_yet', reason, why });

/** A PSP with no connector here nor in Hyperswitch (docs/psp-connectors.md#the-psp-catalogue). */
const NO_CONNECTOR = notYet('no connector yet, direct or through Hyperswitch', { code: 'no_connector' });
const NO_PUBLIC_API = notYet('no public reference of its API found, and no Hyperswitch connector', { code: 'no_public_api' });

/**
 * The original provider's 36 PSPs first, in its list's order and spelling (a parenthesis adds
 * another name merchants know); then the names Chipin adds. Why each of the eight without a route
 * has none: docs/psp-connectors.md#the-psp-catalogue.
 */
export const PSP_CATALOGUE: readonly CatalogueEntry[] = [
  { name: 'Adyen', route: direct('adyen') },
  { name: 'Alipago', route: NO_PUBLIC_API },
  { name: 'Be2bill', route: direct('dalenys') },
  { name: 'Bluesnap', route: HYPERSWITCH },
  { name: 'Braintree', route: direct('braintree') },
  { name: 'CentralPay', route: direct('centralpay') },
  { name: 'Checkout.com', route: direct('checkout') },
  {
    name: 'Credorax (Finaro)',
    route: notYet('acquired by Shift4 (2023-10-26); no connector yet, direct or through Hyperswitch', { code: 'acquired', by: 'Shift4', on: '2023-10-26' }),
  },
  { name: 'Cybersource', route: HYPERSWITCH },
  { name: 'dLocal', route: HYPERSWITCH },
  { name: 'Dalenys', route: direct('dalenys') },
  {
    name: 'Evolve',
    route: notYet(
      'its public API reference does not show all that a connector needs (card details sent server to server, 3-D Secure to relay, a hold captured or cancelled later, a status read); no connector yet, direct or through Hyperswitch',
      { code: 'reference_incomplete' },
    ),
  },
  { name: 'Fondy', route: direct('fondy') },
  { name: 'Halyk bank', route: direct('halyk') },
  { name: 'HiPay', route: direct('hipay') },
  {
    name: 'iPay',
    route: notYet(
      'its public API reference does not show all that a connector needs (partial refunds, and the hold, capture and status calls on saved cards); no connector yet, direct or through Hyperswitch',
      { code: 'reference_incomplete' },
    ),
  },
  { name: 'Mercanet (BNP Paribas)', route: direct('sips') },
  { name: 'MercadoPago', route: direct('mercadopago') },
  { name: 'Midtrans', route: direct('midtrans') },
  { name: 'Monetico (Crédit Mutuel, CIC)', route: direct('monetico') },
  { name: 'Pay ON (ACI Worldwide)', route: HYPERSWITCH },
  { name: 'PayBox (Verifone)', route: direct('paybox') },
  { name: 'PayU', route: HYPERSWITCH },
  { name: 'Payline (Monext)', route: direct('payline') },
  {
    name: 'Payvision',
    route: notYet('acquired by ING (2018), which closed it (2022)', { code: 'acquired', by: 'ING', on: '2018', closed: '2022' }),
  },
  { name: 'PayZen', route: direct('lyra') },
  {
    name: 'ProPay',
    route: notYet(
      'its public API cannot meet the connector contract: no read of a payment by its id or by our reference; no idempotency key, so a call whose answer was lost can be neither found again nor safely sent again',
      { code: 'contract_gap', lacks: ['transaction_read', 'idempotency'] },
    ),
  },
  { name: 'Safecharge (Nuvei)', route: HYPERSWITCH },
  { name: 'Sogecommerce', route: direct('lyra') },
  { name: 'Sogenactif (Société Générale)', route: direct('sips') },
  { name: 'Stripe', route: direct('stripe') },
  { name: 'Systempay', route: direct('lyra') },
  { name: 'Truevo', route: NO_PUBLIC_API },
  { name: 'Worldline (Ogone, Ingenico ePayments)', route: direct('ogone') },
  { name: 'Worldpay', route: HYPERSWITCH },
  { name: 'Yigim', route: NO_PUBLIC_API },
  // Beyond the original provider's list.
  { name: 'Lyra Collect', route: direct('lyra') },
  { name: 'Scellius (La Banque Postale)', route: direct('lyra') },
  { name: 'Clic&Pay (Crédit du Nord)', route: direct('lyra') },
  { name: "Sherlock's (LCL)", route: direct('sips') },
  { name: 'Sips (Worldline)', route: direct('sips') },
  { name: 'e-Transactions (Crédit Agricole)', route: direct('paybox') },
  { name: 'PayPlug', route: NO_CONNECTOR },
  {
    name: 'PayPal',
    route: notYet("no direct connector; Hyperswitch's PayPal connector is not verified for manual capture and merchant-initiated charges", {
      code: 'hyperswitch_unverified',
      hyperswitchConnector: 'PayPal',
    }),
  },
  {
    name: 'Mollie',
    route: notYet("no direct connector; Hyperswitch's Mollie connector is not verified for manual capture and merchant-initiated charges", {
      code: 'hyperswitch_unverified',
      hyperswitchConnector: 'Mollie',
    }),
  },
  {
    name: 'Worldline Direct (Online Payments)',
    route: notYet(
      "its API is not the DirectLink API of the `ogone` connector; Hyperswitch's Worldline connector is not verified for manual capture and merchant-initiated charges",
      { code: 'other_api', connector: 'ogone', hyperswitchConnector: 'Worldline' },
    ),
  },
];

/**
 * The number of PSPs the interface contract says are supported: the original provider's list, the
 * catalogue's first entries (test/docs/psp-catalogue.test.ts keeps them equal).
 */
export const CONTRACT_PSP_COUNT = 36;

/** The names a connector of the build reaches: its own direct ones, and for `hyperswitch` those routed through it. */
export function namesReachedBy(connector: string, catalogue: readonly CatalogueEntry[] = PSP_CATALOGUE): string[] {
  return catalogue
    .filter((e) => (e.route.kind === 'direct' && e.route.connector === connector) || (e.route.kind === 'hyperswitch' && connector === 'hyperswitch'))
    .map((e) => e.name);
}

/**
 * The catalogue as this build reaches it: an entry whose connector (or Hyperswitch) is not in the
 * build reads `not_yet`, so the list never promises a route the build lacks.
 */
export function catalogueOf(connectors: readonly string[], catalogue: readonly CatalogueEntry[] = PSP_CATALOGUE): CatalogueEntry[] {
  return catalogue.map((e) => {
    const needs = e.route.kind === 'direct' ? e.route.connector : e.route.kind === 'hyperswitch' ? 'hyperswitch' : undefined;
    if (needs === undefined || connectors.includes(needs)) return e;
    return { name: e.name, route: { kind: 'not_yet', reason: `its connector (${needs}) is not in this build`, why: { code: 'not_in_build', connector: needs } } };
  });
}
