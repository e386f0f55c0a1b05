import { signInPage, linkSentPage, spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import { parseIdentity } from '../../../shopper-space/identity.ts';
import { LINK_MINUTES, requestSignIn } from '../../../shopper-space/sign-in.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { seeOther, sendSpacePage, shopperOf, spaceForm, spaceLang } from './guard.ts';
import { PAGE, SIGN_IN_FORM, type SignInKit } from './sign-in-support.ts';

/** The sign-in form: an e-mail address or a phone number, then a link sent or a code asked for. */
export function registerSignInForm(app: App, services: Services, kit: SignInKit): void {
  const { csrf, deps, country, browserOf, thenOf, switchBase, throttled } = kit;

  app.get('/space/sign-in', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    if (await shopperOf(services, request)) return seeOther(reply, thenOf(request) ?? '/space');
    browserOf(request, reply);
    return sendSpacePage(reply, 200, signInPage(lang, { csrf: csrf.tokenFor(request, reply, SIGN_IN_FORM), then: thenOf(request), switchBase: switchBase(request) }));
  });

  app.post('/space/sign-in', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    const form = spaceForm(request);
    if (!csrf.verify(request, SIGN_IN_FORM, form)) return sendSpacePage(reply, 403, spaceMessagePage(lang, t.expiredFormTitle, t.expiredForm));
    const typed = (form.identity ?? '').slice(0, 254);
    const identity = parseIdentity(typed, country);
    if (!identity) {
      const page = signInPage(lang, { csrf: csrf.tokenFor(request, reply, SIGN_IN_FORM), then: thenOf(request), typed, error: t.identityInvalid, switchBase: switchBase(request) });
      return sendSpacePage(reply, 400, page);
    }
    const browser = browserOf(request, reply);
    // The sign-in e-mail or SMS speaks the page's language.
    const asked = await requestSignIn({ ...deps, logger: request.log }, { identity, browser, ip: request.ip, lang, returnPath: thenOf(request) });
    if (asked.kind === 'throttled') return throttled(reply, lang, asked.retryAfter);
    return seeOther(reply, asked.channel === 'email' ? `/space/sign-in/sent?lang=${lang}` : `/space/sign-in/code?lang=${lang}&sent=1`);
  });

  app.get('/space/sign-in/sent', PAGE, async (request, reply) => sendSpacePage(reply, 200, linkSentPage(spaceLang(request), LINK_MINUTES)));
}
