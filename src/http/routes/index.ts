import type { Services } from '../../services.ts';
import type { App } from '../types.ts';
import { registerHealth } from './health.ts';
import { registerOpenApi } from './openapi.ts';
import { registerToken } from './token.ts';
import { registerWhoami } from './whoami.ts';

/** Every route of the service, in one place. */
export function registerRoutes(app: App, services: Services): void {
  registerHealth(app, services);
  registerOpenApi(app);
  registerToken(app, services);
  registerWhoami(app);
}
