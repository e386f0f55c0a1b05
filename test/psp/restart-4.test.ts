/** Part 4 of 5 of the restart walk (./restart-walk.ts): a payment of each of its connectors across service restarts. */
import { describeRestartWalks, restartPart } from './restart-walk.ts';

describeRestartWalks(restartPart(4));
