import type { Services } from '../../services.ts';
import type { App } from '../types.ts';
import { registerAbort } from './abort.ts';
import { registerHealth } from './health.ts';
import { registerV1Clients } from './merchant-v1-clients.ts';
import { registerV1Purchases } from './merchant-v1-purchases.ts';
import { registerPayPage } from './pay-page.ts';
import { registerPurchaseLink } from './purchase-link.ts';
import { registerOpenApi } from './openapi.ts';
import { registerSandboxInbox } from './sandbox-inbox.ts';
import { registerToken } from './token.ts';
import { registerWhoami } from './whoami.ts';

/** Every route of the service, in one place. */
export function registerRoutes(app: App, services: Services): void {
  registerHealth(app, services);
  registerOpenApi(app);
  registerToken(app, services);
  registerWhoami(app);
  registerV1Purchases(app, services);
  registerV1Clients(app, services);
  registerPurchaseLink(app, services);
  registerAbort(app, services);
  registerPayPage(app, services);
  // Sandbox helpers are not served at all in production.
  if (services.config.env === 'sandbox') registerSandboxInbox(app, services);
}
