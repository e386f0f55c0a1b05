import type { Services } from '../../../services.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import type { App } from '../../types.ts';
import { registerDevelopersDelivery } from './developers/delivery.ts';
import { registerDevelopersDeliveryReplay } from './developers/delivery-replay.ts';
import { registerDevelopersKeys } from './developers/keys.ts';
import { registerDevelopersPage } from './developers/page.ts';
import { registerDevelopersWebhook } from './developers/webhook.ts';

/**
 * Back office: the Developers page. The webhook endpoint (URL, events) and the delivery log with
 * replay, through the same Deliveries service as `PUT /api/backoffice/webhook` and
 * `POST /api/backoffice/deliveries/{id}/replay`. The signing secret and token are shown once,
 * in the answer to the save, never on the page afterwards (no secret sits in a page one reloads).
 * One route or small family a file in `developers/`, the page's data in its `support.ts`,
 * registered in this order.
 */
export function registerDashboardDevelopers(app: App, services: Services, sessions: DashboardSessions): void {
  registerDevelopersPage(app, services, sessions);
  registerDevelopersDelivery(app, services, sessions);
  registerDevelopersWebhook(app, services, sessions);
  registerDevelopersDeliveryReplay(app, services, sessions);
  registerDevelopersKeys(app, services, sessions);
}
