/** Part 2 of 3 of back mode end to end (./end-to-end-walk.ts): its connectors' flows, each on its PSP's fake. */
import { describeEndToEnd, endToEndPart } from './end-to-end-walk.ts';

describeEndToEnd(endToEndPart(2));
