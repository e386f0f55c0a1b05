import { describeConnectorContract } from './connector-contract.ts';
import { stripeHarness } from './fixtures/stripe/harness.ts';

describeConnectorContract('stripe', () => stripeHarness());
