import { spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { clearedShopperSessionCookie, seeOther, sendSpacePage, shopperOf, spaceForm, spaceLang } from './guard.ts';
import { PAGE, type SignInKit } from './sign-in-support.ts';

/** Signing out: the session's own token guards the form, and its cookie is cleared in any case. */
export function registerSignOut(app: App, services: Services, kit: SignInKit): void {
  const { publicUrl, sessions } = kit;

  app.post('/space/sign-out', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    const session = await shopperOf(services, request);
    const cleared = () => reply.header('set-cookie', clearedShopperSessionCookie(publicUrl));
    if (!session) return seeOther(cleared(), '/space/sign-in');
    if (!sessions.csrfMatches(session, spaceForm(request).csrf)) return sendSpacePage(reply, 403, spaceMessagePage(lang, t.expiredFormTitle, t.expiredForm));
    await sessions.revoke(session.sessionId);
    return seeOther(cleared(), `/space/sign-in?lang=${lang}`);
  });
}
