import { spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import { LINK_MINUTES, redeemLink } from '../../../shopper-space/sign-in.ts';
import type { App } from '../../types.ts';
import { sendSpacePage, spaceLang } from './guard.ts';
import { PAGE, type SignInKit } from './sign-in-support.ts';

/** The link sent by e-mail: a session when it is opened in the browser that asked for it. */
export function registerSignInLink(app: App, kit: SignInKit): void {
  const { deps, keptBrowser, throttled, signIn } = kit;

  app.get('/space/sign-in/link/:token', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    const { token } = request.params as { token: string };
    const done = await redeemLink(deps, { token, browser: keptBrowser(request), ip: request.ip });
    switch (done.kind) {
      case 'signed_in':
        return signIn(request, reply, done);
      case 'throttled':
        return throttled(reply, lang, done.retryAfter);
      case 'other_browser':
        return sendSpacePage(reply, 403, spaceMessagePage(lang, t.linkOtherBrowserTitle, t.linkOtherBrowser));
      case 'invalid':
        return sendSpacePage(reply, 410, spaceMessagePage(lang, t.linkInvalidTitle, t.linkInvalid(LINK_MINUTES)));
    }
  });
}
