import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AdyenConnector } from '../../src/psp/adyen/connector.ts';
import { BraintreeConnector } from '../../src/psp/braintree/connector.ts';
import { CentralpayConnector } from '../../src/psp/centralpay/connector.ts';
import { CheckoutConnector } from '../../src/psp/checkout/connector.ts';
import { DalenysConnector } from '../../src/psp/dalenys/connector.ts';
import { CONNECTOR_DEFINITIONS } from '../../src/psp/definitions.ts';
import { FondyConnector } from '../../src/psp/fondy/connector.ts';
import { HipayConnector } from '../../src/psp/hipay/connector.ts';
import { HyperswitchConnector } from '../../src/psp/hyperswitch/connector.ts';
import { LyraConnector } from '../../src/psp/lyra/connector.ts';
import { MercadoPagoConnector } from '../../src/psp/mercadopago/connector.ts';
import { MidtransConnector } from '../../src/psp/midtrans/connector.ts';
import { MoneticoConnector } from '../../src/psp/monetico/connector.ts';
import { HalykConnector } from '../../src/psp/halyk/connector.ts';
import { OgoneConnector } from '../../src/psp/ogone/connector.ts';
import { PayboxConnector } from '../../src/psp/paybox/connector.ts';
import { PaylineConnector } from '../../src/psp/payline/connector.ts';
import { SipsConnector } from '../../src/psp/sips/connector.ts';
import { StripeConnector } from '../../src/psp/stripe/connector.ts';

/** Each real PSP's connector class (the sandbox's reconciliation is docs/money-operations.md's). */
const CLASSES: Record<string, { prototype: object }> = {
  adyen: AdyenConnector,
  braintree: BraintreeConnector,
  centralpay: CentralpayConnector,
  checkout: CheckoutConnector,
  dalenys: DalenysConnector,
  fondy: FondyConnector,
  halyk: HalykConnector,
  hipay: HipayConnector,
  hyperswitch: HyperswitchConnector,
  lyra: LyraConnector,
  mercadopago: MercadoPagoConnector,
  midtrans: MidtransConnector,
  monetico: MoneticoConnector,
  ogone: OgoneConnector,
  paybox: PayboxConnector,
  payline: PaylineConnector,
  sips: SipsConnector,
  stripe: StripeConnector,
};

/** The `reads by` column of docs/psp-connectors.md#reconciliation-list-or-retrieve, by connector. */
function documented(): Record<string, string> {
  const doc = readFileSync(new URL('../../docs/psp-connectors.md', import.meta.url), 'utf8');
  const section = doc.split('### Reconciliation: list or retrieve')[1]!.split('\n### ')[0]!;
  const rows: Record<string, string> = {};
  for (const line of section.split('\n')) {
    const m = /^\| `([a-z]+)` \| (list|retrieve) \|/.exec(line);
    if (m) rows[m[1]!] = m[2]!;
  }
  return rows;
}

describe('which connectors reconcile by list (docs/psp-connectors.md#reconciliation-list-or-retrieve)', () => {
  it('every real connector of the build is in this file and in the table', () => {
    const real = CONNECTOR_DEFINITIONS.map((d) => d.name)
      .filter((n) => n !== 'sandbox')
      .sort();
    expect(Object.keys(CLASSES).sort()).toEqual(real);
    expect(Object.keys(documented()).sort()).toEqual(real);
  });

  it('the table says list exactly for the connectors that have listTransactions', () => {
    const byCode = Object.fromEntries(
      Object.entries(CLASSES).map(([name, c]) => [name, typeof (c.prototype as { listTransactions?: unknown }).listTransactions === 'function' ? 'list' : 'retrieve']),
    );
    expect(documented()).toEqual(byCode);
  });
});
