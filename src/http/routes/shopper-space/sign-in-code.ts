import { codePage, spaceMessagePage } from '../../../pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../../pages/shopper-space/texts.ts';
import { CODE_MINUTES, redeemCode } from '../../../shopper-space/sign-in.ts';
import type { App } from '../../types.ts';
import { sendSpacePage, spaceForm, spaceLang } from './guard.ts';
import { CODE_FORM, PAGE, type SignInKit } from './sign-in-support.ts';

/** The code sent by SMS: its form, and a session when it is typed in the browser that asked for it. */
export function registerSignInCode(app: App, kit: SignInKit): void {
  const { csrf, deps, keptBrowser, throttled, signIn } = kit;

  app.get('/space/sign-in/code', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const sent = (request.query as Record<string, unknown> | undefined)?.sent === '1';
    return sendSpacePage(reply, 200, codePage(lang, { csrf: csrf.tokenFor(request, reply, CODE_FORM), minutes: CODE_MINUTES, sent }));
  });

  app.post('/space/sign-in/code', PAGE, async (request, reply) => {
    const lang = spaceLang(request);
    const t = SPACE_TEXT[lang];
    const form = spaceForm(request);
    if (!csrf.verify(request, CODE_FORM, form)) return sendSpacePage(reply, 403, spaceMessagePage(lang, t.expiredFormTitle, t.expiredForm));
    const done = await redeemCode(deps, { code: (form.code ?? '').slice(0, 20), browser: keptBrowser(request), ip: request.ip });
    const again = (status: number, error: string) =>
      sendSpacePage(reply, status, codePage(lang, { csrf: csrf.tokenFor(request, reply, CODE_FORM), minutes: CODE_MINUTES, sent: false, error }));
    switch (done.kind) {
      case 'signed_in':
        return signIn(request, reply, done);
      case 'throttled':
        return throttled(reply, lang, done.retryAfter);
      case 'malformed':
        return again(400, t.codeMalformed);
      case 'wrong':
        return again(400, t.codeWrong(done.triesLeft));
      case 'no_code':
        return sendSpacePage(reply, 410, spaceMessagePage(lang, t.linkInvalidTitle, t.codeNone));
    }
  });
}
