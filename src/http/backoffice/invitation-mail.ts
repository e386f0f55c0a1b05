import type { OutgoingMail } from '../../messaging/mailer.ts';
import type { EnFr } from '../../i18n/lang.ts';
import { formatDateTime } from '../../i18n/format.ts';
import { DASHBOARD_TEXT } from './texts.ts';
import type { Role } from '../../domain/roles.ts';

/** The invitation e-mail, in the inviter's language (the invitee's is not known yet); plain text, the link on its own line. */
export function invitationMail(lang: EnFr, v: { to: string; accountName: string; timeZone: string; invitedBy: string; role: Role; url: string; expiresAt: Date }): OutgoingMail {
  const t = DASHBOARD_TEXT[lang];
  return {
    to: v.to,
    subject: t.inviteSubject(v.accountName),
    text: t.inviteBody(v.invitedBy, v.accountName, t.roleNames[v.role], v.url, formatDateTime(v.expiresAt, lang, v.timeZone)),
  };
}
