import { describeFreshInstance } from './connector-contract.ts';
import { adyenHarness } from './fixtures/adyen/harness.ts';
import { checkoutHarness } from './fixtures/checkout/harness.ts';
import { braintreeHarness } from './fixtures/braintree/harness.ts';
import { centralpayHarness } from './fixtures/centralpay/harness.ts';
import { dalenysHarness } from './fixtures/dalenys/harness.ts';
import { fondyHarness } from './fixtures/fondy/harness.ts';
import { halykHarness } from './fixtures/halyk/harness.ts';
import { hipayHarness } from './fixtures/hipay/harness.ts';
import { hyperswitchHarness } from './fixtures/hyperswitch/harness.ts';
import { lyraHarness } from './fixtures/lyra/harness.ts';
import { midtransHarness } from './fixtures/midtrans/harness.ts';
import { contractInIdr } from './fixtures/midtrans/in-idr.ts';
import { moneticoHarness } from './fixtures/monetico/harness.ts';
import { ogoneHarness } from './fixtures/ogone/harness.ts';
import { payboxHarness } from './fixtures/paybox/harness.ts';
import { sandboxHarness } from './fixtures/sandbox/harness.ts';
import { sipsHarness } from './fixtures/sips/harness.ts';
import { mercadopagoHarness } from './fixtures/mercadopago/harness.ts';
import { stripeHarness } from './fixtures/stripe/harness.ts';

/**
 * Every connector of this build, across processes: authorised by one instance, captured, refunded
 * and voided by fresh ones (docs/psp-connectors.md#state-and-idempotency). Not database-independent:
 * the operation log each connector keeps its idempotency in is in the database, so this file runs
 * on PGlite and on PostgreSQL.
 */
describeFreshInstance('sandbox', sandboxHarness);
describeFreshInstance('stripe', () => stripeHarness());
describeFreshInstance('adyen', adyenHarness);
describeFreshInstance('lyra', () => lyraHarness());
describeFreshInstance('ogone', () => ogoneHarness());
describeFreshInstance('hipay', () => hipayHarness());
describeFreshInstance('monetico', moneticoHarness);
describeFreshInstance('centralpay', () => centralpayHarness());
describeFreshInstance('dalenys', () => dalenysHarness());
describeFreshInstance('paybox', () => payboxHarness());
describeFreshInstance('sips', () => sipsHarness());
describeFreshInstance('checkout', () => checkoutHarness());
describeFreshInstance('mercadopago', () => mercadopagoHarness());
describeFreshInstance('midtrans', async () => contractInIdr(await midtransHarness()));
describeFreshInstance('braintree', braintreeHarness);
describeFreshInstance('fondy', () => fondyHarness());
describeFreshInstance('halyk', halykHarness);
describeFreshInstance('hyperswitch', hyperswitchHarness);
