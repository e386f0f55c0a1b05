import type { BankDetailsProblem } from '../../../payouts/bank-details.ts';

/** The words of the payouts pages (`payouts-page.ts`), also read by the menu, in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const PAYOUTS_TEXT_EN = {
  payouts: {
    menu: 'Payouts',
    title: 'Balance and payouts',
    intro: (zone: string) =>
      `In transfer mode the operator collects your shoppers’ payments and owes you what your validated purchases bring in, less its commission, refunds and chargebacks. Each day, once it has ended (${zone}, the account’s time zone), what is owed is paid to your bank account in one transfer per currency.`,
    balance: 'Balance',
    currency: 'Currency',
    owed: 'Owed to you',
    inPayouts: 'In payouts not yet sent',
    paidOut: 'Paid out',
    nextPayout: 'Next payout',
    next: {
      on_next_run: 'paid after the end of the day',
      no_bank_details: 'none: set your bank details below, what is owed stays owed until then',
      held: 'held: your IBAN changed lately, paid after the cooling-off (see below)',
      debit_balance: 'none: your balance is negative (refunds or chargebacks), deducted from the next payouts',
      nothing_owed: 'nothing owed',
    } as Record<string, string>,
    noBalance: 'Nothing booked yet: your offers are in back mode, or no purchase of transfer mode has been validated.',
    bankDetails: 'Bank details',
    bankDetailsIntro: 'Where your payouts are sent (SEPA credit transfer). Stored encrypted; the IBAN is shown masked once saved. Each change is in the audit log.',
    noBankDetails: 'No bank details: no payout is made, and what is owed stays owed until they are set.',
    holderName: 'Account holder',
    iban: 'IBAN',
    bic: 'BIC',
    updated: 'Changed',
    changeBankDetails: 'Change the bank details',
    setBankDetails: 'Set the bank details',
    save: 'Save',
    saved: 'Bank details saved.',
    unchanged: 'These are already your bank details: nothing changed.',
    currentPassword: 'Your current password',
    wrongPassword: 'Your current password is needed to change the bank details, and this is not it: nothing changed.',
    /** A refused field of the bank details form, named by its label (the rule comes as data: the API's message stays English). */
    problem: (p: BankDetailsProblem): string => {
      switch (p.rule) {
        case 'holder_required':
          return 'Account holder: enter the name of the account holder, as the bank knows it. Nothing changed.';
        case 'holder_too_long':
          return `Account holder: at most ${p.max} characters. Nothing changed.`;
        case 'holder_control_characters':
          return 'Account holder: remove the control characters. Nothing changed.';
        case 'holder_not_latin':
          return 'Account holder: write it in Latin letters, the only ones a SEPA transfer carries. Nothing changed.';
        case 'iban_required':
          return 'IBAN: enter the IBAN of the account. Nothing changed.';
        case 'iban_country_code':
          return 'IBAN: this is not a valid IBAN, its country code is not one IBANs use. Nothing changed.';
        case 'iban_length':
          return 'IBAN: this is not a valid IBAN, it has the wrong length for its country. Nothing changed.';
        case 'iban_format':
          return 'IBAN: this is not a valid IBAN, its account number does not have its country’s format. Nothing changed.';
        case 'iban_check_digits':
          return 'IBAN: this is not a valid IBAN, its check digits are wrong (a typing mistake?). Nothing changed.';
        case 'iban_not_sepa':
          return `IBAN: it must be of a SEPA country (${p.country} is not), as payouts are SEPA credit transfers. Nothing changed.`;
        case 'bic_required':
          return 'BIC: enter the BIC of the bank. Nothing changed.';
        case 'bic_invalid':
          return 'BIC: this is not a valid BIC (8 or 11 characters: bank, country, location and branch codes). Nothing changed.';
        case 'bic_other_country':
          return `BIC: it is of another country (${p.bicCountry}) than the IBAN (${p.ibanCountry}). Nothing changed.`;
      }
    },
    heldUntil: (when: string) =>
      `Payouts are held until ${when}: the IBAN was changed, and every admin was told by e-mail. If none of you made the change, tell the operator at once.`,
    list: 'Payouts',
    noPayouts: 'No payout yet.',
    day: 'Day',
    amount: 'Amount',
    lines: 'Lines',
    status: 'Status',
    created: 'Made',
    statusNames: { created: 'created', exported: 'in the bank file', sent: 'sent', returned: 'returned (owed again)' } as Record<string, string>,
    newest: (n: number) => `The ${n} newest; every one in GET /api/backoffice/payouts.`,
    payoutTitle: (id: string) => `Payout ${id}`,
    notFound: 'There is no such payout in this account.',
    back: 'Back to balance and payouts',
    csv: 'Download the lines as CSV',
    purchase: 'Purchase',
    event: 'Event',
    booked: 'Booked',
    linesTooMany: (n: number) => `Only the first ${n} lines are shown: download the CSV for all of them.`,
    events: {
      validated: 'purchase validated',
      refund: 'refund',
      chargeback: 'chargeback',
      chargeback_reversal: 'chargeback reversed',
      plan_cancelled: 'plan cancelled',
      credit_by_transfer: 'refund by transfer',
      payout_returned: 'payout returned',
    } as Record<string, string>,
  },
};

export const PAYOUTS_TEXT_FR: typeof PAYOUTS_TEXT_EN = {
  payouts: {
    menu: 'Versements',
    title: 'Solde et versements',
    intro: (zone) =>
      `En mode transfert, l’opérateur encaisse les paiements de vos acheteurs et vous doit ce que rapportent vos achats validés, moins sa commission, les remboursements et les rétrofacturations. Chaque jour, une fois terminé (${zone}, le fuseau du compte), ce qui vous est dû est versé sur votre compte bancaire, en un virement par devise.`,
    balance: 'Solde',
    currency: 'Devise',
    owed: 'Dû',
    inPayouts: 'En versements pas encore envoyés',
    paidOut: 'Versé',
    nextPayout: 'Prochain versement',
    next: {
      on_next_run: 'versé après la fin de la journée',
      no_bank_details: 'aucun : indiquez vos coordonnées bancaires ci-dessous, ce qui est dû le reste jusque-là',
      held: 'retenu : votre IBAN a changé récemment, versé après le délai de sécurité (voir ci-dessous)',
      debit_balance: 'aucun : votre solde est négatif (remboursements ou rétrofacturations), déduit des prochains versements',
      nothing_owed: 'rien n’est dû',
    },
    noBalance: 'Rien n’est encore comptabilisé : vos offres sont en mode back, ou aucun achat en mode transfert n’a été validé.',
    bankDetails: 'Coordonnées bancaires',
    bankDetailsIntro: 'Où vos versements sont envoyés (virement SEPA). Conservées chiffrées ; l’IBAN est masqué une fois enregistré. Chaque changement est au journal d’audit.',
    noBankDetails: 'Aucune coordonnée bancaire : aucun versement n’est fait, et ce qui est dû le reste jusqu’à ce qu’elles soient indiquées.',
    holderName: 'Titulaire du compte',
    iban: 'IBAN',
    bic: 'BIC',
    updated: 'Modifiées le',
    changeBankDetails: 'Modifier les coordonnées bancaires',
    setBankDetails: 'Indiquer les coordonnées bancaires',
    save: 'Enregistrer',
    saved: 'Coordonnées bancaires enregistrées.',
    unchanged: 'Ce sont déjà vos coordonnées bancaires : rien n’a changé.',
    currentPassword: 'Votre mot de passe actuel',
    wrongPassword: 'Votre mot de passe actuel est demandé pour modifier les coordonnées bancaires, et ce n’est pas lui : rien n’a changé.',
    problem: (p) => {
      switch (p.rule) {
        case 'holder_required':
          return 'Titulaire du compte\u00a0: indiquez le nom du titulaire du compte, tel que la banque le connaît. Rien n’a changé.';
        case 'holder_too_long':
          return `Titulaire du compte\u00a0: ${p.max} caractères au plus. Rien n’a changé.`;
        case 'holder_control_characters':
          return 'Titulaire du compte\u00a0: retirez les caractères de contrôle. Rien n’a changé.';
        case 'holder_not_latin':
          return 'Titulaire du compte\u00a0: écrivez-le en lettres latines, les seules qu’un virement SEPA transporte. Rien n’a changé.';
        case 'iban_required':
          return 'IBAN\u00a0: indiquez l’IBAN du compte. Rien n’a changé.';
        case 'iban_country_code':
          return 'IBAN\u00a0: cet IBAN n’est pas valide, son code pays n’est pas celui d’un IBAN. Rien n’a changé.';
        case 'iban_length':
          return 'IBAN\u00a0: cet IBAN n’est pas valide, sa longueur ne correspond pas à son pays. Rien n’a changé.';
        case 'iban_format':
          return 'IBAN\u00a0: cet IBAN n’est pas valide, son numéro de compte n’a pas le format de son pays. Rien n’a changé.';
        case 'iban_check_digits':
          return 'IBAN\u00a0: cet IBAN n’est pas valide, sa clé de contrôle est fausse (une faute de frappe\u00a0?). Rien n’a changé.';
        case 'iban_not_sepa':
          return `IBAN\u00a0: il doit être d’un pays SEPA (${p.country} n’en est pas un), les versements étant des virements SEPA. Rien n’a changé.`;
        case 'bic_required':
          return 'BIC\u00a0: indiquez le BIC de la banque. Rien n’a changé.';
        case 'bic_invalid':
          return 'BIC\u00a0: ce BIC n’est pas valide (8 ou 11 caractères\u00a0: codes banque, pays, localité et agence). Rien n’a changé.';
        case 'bic_other_country':
          return `BIC\u00a0: il est d’un autre pays (${p.bicCountry}) que l’IBAN (${p.ibanCountry}). Rien n’a changé.`;
      }
    },
    heldUntil: (when: string) =>
      `Les versements sont retenus jusqu’au ${when} : l’IBAN a été modifié, et chaque administrateur en a été averti par e-mail. Si aucun de vous n’a fait ce changement, prévenez l’opérateur immédiatement.`,
    list: 'Versements',
    noPayouts: 'Aucun versement pour l’instant.',
    day: 'Jour',
    amount: 'Montant',
    lines: 'Lignes',
    status: 'Statut',
    created: 'Fait le',
    statusNames: { created: 'créé', exported: 'dans le fichier de la banque', sent: 'envoyé', returned: 'revenu (de nouveau dû)' },
    newest: (n) => `Les ${n} plus récents ; tous par GET /api/backoffice/payouts.`,
    payoutTitle: (id) => `Versement ${id}`,
    notFound: 'Ce compte n’a pas ce versement.',
    back: 'Retour au solde et aux versements',
    csv: 'Télécharger les lignes en CSV',
    purchase: 'Achat',
    event: 'Événement',
    booked: 'Comptabilisé le',
    linesTooMany: (n) => `Seules les ${n} premières lignes sont affichées : téléchargez le CSV pour toutes.`,
    events: {
      validated: 'achat validé',
      refund: 'remboursement',
      chargeback: 'rétrofacturation',
      chargeback_reversal: 'rétrofacturation annulée',
      plan_cancelled: 'échéancier annulé',
      credit_by_transfer: 'remboursement par virement',
      payout_returned: 'versement revenu',
    },
  },
};
