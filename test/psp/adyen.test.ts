import { describeConnectorContract } from './connector-contract.ts';
import { adyenHarness } from './fixtures/adyen/harness.ts';

describeConnectorContract('adyen', adyenHarness);
