import { describeConnectorContract } from './connector-contract.ts';
import { hipayHarness } from './fixtures/hipay/harness.ts';

describeConnectorContract('hipay', hipayHarness);
