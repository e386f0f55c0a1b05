import type { EnFr } from '../i18n/lang.ts';
import type { OutgoingMail } from '../messaging/mailer.ts';

/**
 * The sign-in e-mail and SMS of the shopper's space, in the language of the page the shopper asked
 * from when it is English or French, else in English (docs/shopper-space.md#pages).
 */

export function signInMail(lang: EnFr, to: string, url: string, minutes: number): OutgoingMail {
  if (lang === 'fr') {
    return {
      to,
      subject: 'Votre lien de connexion à votre espace Chipin',
      text:
        `Bonjour,\n\nPour voir vos achats et vos échéances, ouvrez ce lien dans le navigateur où vous l’avez demandé :\n\n${url}\n\n` +
        `Il fonctionne une seule fois, pendant ${minutes} minutes.\n` +
        `Si vous n’avez rien demandé, ignorez ce message : personne ne peut se connecter sans ce lien.\n`,
    };
  }
  return {
    to,
    subject: 'Your sign-in link to your Chipin space',
    text:
      `Hello,\n\nTo see your purchases and what you owe, open this link in the browser where you asked for it:\n\n${url}\n\n` +
      `It works once, for ${minutes} minutes.\n` +
      `If you did not ask for it, ignore this message: nobody can sign in without this link.\n`,
  };
}

export function signInSms(lang: EnFr, code: string, minutes: number): string {
  return lang === 'fr'
    ? `Chipin : votre code de connexion est ${code}. Valable ${minutes} min, une seule fois. Ne le donnez à personne.`
    : `Chipin: your sign-in code is ${code}. Valid ${minutes} min, once. Never share it.`;
}
