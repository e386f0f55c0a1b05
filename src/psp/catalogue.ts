/**
 * The PSPs a merchant may name, and how Chipin reaches each (docs/psp-connectors.md#the-psp-catalogue):
 * through a connector of this build, through Hyperswitch (an open-source orchestrator the merchant
 * runs or rents, reached by the `hyperswitch` connector), or not yet, with the reason. The README's
 * table is this list (test/docs/psp-catalogue.test.ts keeps them equal), `GET
 * /api/backoffice/psp_catalogue` serves it, and each connector of `GET /api/backoffice/psps` lists
 * the names it reaches.
 */
export type CatalogueRoute = { kind: 'direct'; connector: string } | { kind: 'hyperswitch' } | { kind: 'not_yet'; reason: string; why: NotYetWhy };

/**
 * Why a PSP is not reached, as data, for a page to say in its language (`notReachedWhy` in
 * src/dashboard/texts.ts); `reason` is the same in English, for the API and the README.
 */
export type NotYetWhy =
  | { code: 'no_connector' }
  | { code: 'hyperswitch_unverified'; hyperswitchConnector: string }
  | { code: 'other_api'; connector: string; hyperswitchConnector: string }
  | { code: 'not_in_build'; connector: string };

export interface CatalogueEntry {
  /** As merchants know it. */
  name: string;
  route: CatalogueRoute;
}

const direct = (connector: string): CatalogueRoute => ({ kind: 'direct', connector });
const HYPERSWITCH: CatalogueRoute = { kind: 'hyperswitch' };
const notYet = (reason: string, why: NotYetWhy): CatalogueRoute => ({ kind: 'not_yet', reason, why });

export const PSP_CATALOGUE: readonly CatalogueEntry[] = [
  { name: 'Stripe', route: direct('stripe') },
  { name: 'Adyen', route: direct('adyen') },
  { name: 'HiPay', route: direct('hipay') },
  { name: 'Worldline / Ogone (Ingenico ePayments)', route: direct('ogone') },
  { name: 'PayZen', route: direct('lyra') },
  { name: 'Systempay', route: direct('lyra') },
  { name: 'Sogecommerce', route: direct('lyra') },
  { name: 'Lyra Collect', route: direct('lyra') },
  { name: 'Scellius (La Banque Postale)', route: direct('lyra') },
  { name: 'Clic&Pay (Crédit du Nord)', route: direct('lyra') },
  { name: 'Mercanet (BNP Paribas)', route: direct('sips') },
  { name: 'Sogenactif (Société Générale)', route: direct('sips') },
  { name: "Sherlock's (LCL)", route: direct('sips') },
  { name: 'Sips (Worldline)', route: direct('sips') },
  { name: 'Monetico (Crédit Mutuel, CIC)', route: direct('monetico') },
  { name: 'PayBox (Verifone)', route: direct('paybox') },
  { name: 'e-Transactions (Crédit Agricole)', route: direct('paybox') },
  { name: 'Payline (Monext)', route: direct('payline') },
  { name: 'Dalenys', route: direct('dalenys') },
  { name: 'Be2bill', route: direct('dalenys') },
  { name: 'CentralPay', route: direct('centralpay') },
  { name: 'Braintree', route: direct('braintree') },
  { name: 'Checkout.com', route: direct('checkout') },
  { name: 'Mercado Pago', route: direct('mercadopago') },
  { name: 'Midtrans', route: direct('midtrans') },
  { name: 'Bluesnap', route: HYPERSWITCH },
  { name: 'Cybersource', route: HYPERSWITCH },
  { name: 'dLocal', route: HYPERSWITCH },
  { name: 'Nuvei (Safecharge)', route: HYPERSWITCH },
  { name: 'PayU', route: HYPERSWITCH },
  { name: 'Worldpay', route: HYPERSWITCH },
  { name: 'ACI Worldwide (Pay ON)', route: HYPERSWITCH },
  { name: 'PayPlug', route: notYet('no connector yet, direct or through Hyperswitch', { code: 'no_connector' }) },
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

/** The number of PSPs the interface contract says are supported; the catalogue names that many. */
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
