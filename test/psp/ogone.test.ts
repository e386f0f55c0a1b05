import { describeConnectorContract } from './connector-contract.ts';
import { ogoneHarness } from './fixtures/ogone/harness.ts';

describeConnectorContract('ogone', ogoneHarness);
