import type { ConnectorDefinition } from './definition.ts';
import { adyenDefinition } from './adyen/definition.ts';
import { checkoutDefinition } from './checkout/definition.ts';
import { centralpayDefinition } from './centralpay/definition.ts';
import { braintreeDefinition } from './braintree/definition.ts';
import { dalenysDefinition } from './dalenys/definition.ts';
import { fondyDefinition } from './fondy/definition.ts';
import { halykDefinition } from './halyk/definition.ts';
import { hipayDefinition } from './hipay/definition.ts';
import { hyperswitchDefinition } from './hyperswitch/definition.ts';
import { lyraDefinition } from './lyra/definition.ts';
import { mercadopagoDefinition } from './mercadopago/definition.ts';
import { midtransDefinition } from './midtrans/definition.ts';
import { moneticoDefinition } from './monetico/definition.ts';
import { ogoneDefinition } from './ogone/definition.ts';
import { paylineDefinition } from './payline/definition.ts';
import { payboxDefinition } from './paybox/definition.ts';
import { sandboxDefinition } from './sandbox/definition.ts';
import { sipsDefinition } from './sips/definition.ts';
import { stripeDefinition } from './stripe/definition.ts';

/**
 * The PSP connectors this build has (back mode,
 * docs/psp-connectors.md#connector-instances-and-the-registry). Adding a connector is one line
 * here: import its folder's `definition.ts` and append it. The registry checks the list at boot
 * (names, duplicates, credential fields).
 */
export const CONNECTOR_DEFINITIONS: readonly ConnectorDefinition[] = [
  sandboxDefinition,
  stripeDefinition,
  adyenDefinition,
  lyraDefinition,
  ogoneDefinition,
  hipayDefinition,
  moneticoDefinition,
  centralpayDefinition,
  paylineDefinition,
  dalenysDefinition,
  payboxDefinition,
  sipsDefinition,
  checkoutDefinition,
  mercadopagoDefinition,
  midtransDefinition,
  braintreeDefinition,
  hyperswitchDefinition,
  fondyDefinition,
  halykDefinition,
];
