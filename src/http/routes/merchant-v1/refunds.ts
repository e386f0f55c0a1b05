import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { registerV1PurchaseCancel } from './purchase-cancel.ts';
import { registerV1RefundCreate } from './refund-create.ts';
import { registerV1RefundList } from './refund-list.ts';

/**
 * Merchant API v1: refunds and cancellation of a purchase (docs/purchase-lifecycle.md#refunds,
 * #cancel), one route a file, in the order the API reference lists them.
 */
export function registerV1Refunds(app: App, services: Services): void {
  registerV1RefundCreate(app, services);
  registerV1RefundList(app, services);
  registerV1PurchaseCancel(app, services);
}
