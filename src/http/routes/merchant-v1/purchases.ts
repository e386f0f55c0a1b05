import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { registerV1PurchaseCreate } from './purchase-create.ts';
import { registerV1PurchaseList } from './purchase-list.ts';
import { registerV1PurchaseRead } from './purchase-read.ts';

/** Merchant API v1: purchases, one route a file, in the order the API reference lists them. */
export function registerV1Purchases(app: App, services: Services): void {
  registerV1PurchaseCreate(app, services);
  registerV1PurchaseRead(app, services);
  registerV1PurchaseList(app, services);
}
