import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { registerSandboxLeaderPayment } from './leader-payment.ts';
import { registerSandboxPledgePayment } from './pledge-payment.ts';

/**
 * Sandbox test helpers (not in production): act as the leader or a pledger with a test card, so
 * a whole flow can be tested with curl. Same code path as the hosted pages. One route a file, in
 * the order the API reference lists them.
 */
export function registerSandboxPayments(app: App, services: Services): void {
  registerSandboxLeaderPayment(app, services);
  registerSandboxPledgePayment(app, services);
}
