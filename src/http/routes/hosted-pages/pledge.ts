import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { registerPledgeConfirming } from './pledge-confirming.ts';
import { registerPledgeForm } from './pledge-form.ts';
import { registerPledgeReturn } from './pledge-return.ts';
import { PledgePages } from './pledge-view.ts';

/**
 * A pledger's page: `GET /pledge/<plg_uid>` shows it, `POST` pays the share; the wait while the
 * payment is confirmed; the return from 3-D Secure. One small family of routes a file, sharing
 * one view of the page (pledge-view.ts).
 */
export function registerPledgePages(app: App, services: Services): void {
  const page = new PledgePages(services);
  registerPledgeForm(app, services, page);
  registerPledgeConfirming(app, services, page);
  registerPledgeReturn(app, page);
}
