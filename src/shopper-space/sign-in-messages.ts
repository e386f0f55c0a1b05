import type { Lang } from '../i18n/lang.ts';
import type { OutgoingMail } from '../messaging/mailer.ts';
import { smsSafe } from '../messaging/templates.ts';
import { MESSAGE_TEXT } from '../messaging/texts.ts';

/**
 * The sign-in e-mail and SMS of the shopper's space, in the language of the page the shopper asked
 * from (docs/shopper-space.md#pages), their words the messages catalogue's (`signIn`). `minutes`:
 * how long the link or code works (sign-in.ts's LINK_MINUTES, CODE_MINUTES), said as it is.
 */

export function signInMail(lang: Lang, to: string, url: string, minutes: number): OutgoingMail {
  const t = MESSAGE_TEXT[lang];
  return { to, subject: t.signIn.subject, text: [t.greeting(undefined), '', t.signIn.open, '', url, '', t.signIn.once(minutes), t.signIn.ignore, ''].join('\n') };
}

export function signInSms(lang: Lang, code: string, minutes: number): string {
  return smsSafe(MESSAGE_TEXT[lang].signIn.sms(code, minutes));
}
