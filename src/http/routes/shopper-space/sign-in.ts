import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { registerSignInCode } from './sign-in-code.ts';
import { registerSignInForm } from './sign-in-form.ts';
import { registerSignInLink } from './sign-in-link.ts';
import { signInKit } from './sign-in-support.ts';
import { registerSignOut } from './sign-out.ts';

/**
 * The shopper's space: sign-in without a password (docs/shopper-space.md#sign-in). The forms
 * before a session are protected by the hosted forms' double-submit CSRF cookie; sign-out by the
 * session's token. One small family of routes a file, sharing one kit.
 */
export function registerShopperSignIn(app: App, services: Services): void {
  const kit = signInKit(services);
  registerSignInForm(app, services, kit);
  registerSignInLink(app, kit);
  registerSignInCode(app, kit);
  registerSignOut(app, services, kit);
}
