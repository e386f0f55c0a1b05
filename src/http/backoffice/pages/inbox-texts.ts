/** The words of the sandbox inbox (`inbox-page.ts`), in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const INBOX_TEXT_EN = {
  inbox: {
    title: 'Sandbox inbox',
    intro: (shown: number) => `The e-mails and SMS sent for this account’s purchases, sign-in links and codes of its shoppers included, newest first (the last ${shown}).`,
    refresh: 'Refresh',
    empty: 'No message yet.',
    email: 'E-mail',
    sms: 'SMS',
    to: (recipient: string) => `to ${recipient}`,
    accepted: 'accepted',
    notAccepted: 'not accepted',
  },
};

export const INBOX_TEXT_FR: typeof INBOX_TEXT_EN = {
  inbox: {
    title: 'Messages envoyés (sandbox)',
    intro: (shown) =>
      `Les e-mails et SMS envoyés pour les achats de ce compte, liens et codes de connexion de ses clients compris, du plus récent au plus ancien (les ${shown} derniers).`,
    refresh: 'Actualiser',
    empty: 'Aucun message pour l’instant.',
    email: 'E-mail',
    sms: 'SMS',
    to: (recipient) => `à ${recipient}`,
    accepted: 'accepté',
    notAccepted: 'non accepté',
  },
};
