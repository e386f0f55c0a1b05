/** The words of the reports page (`reports-page.ts`), in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const REPORTS_TEXT_EN = {
  report: {
    title: 'Daily report',
    intro: (zone: string) =>
      `Per day, PSP account and currency: what was captured, refunded and charged back, the fees charged to shoppers, the net, and the purchases that reached each state. Days of ${zone}, the account’s time zone.`,
    payoutNote:
      'Net is what the PSP account kept. In transfer mode that account is the operator’s: what you are paid is Payout, the gross of the purchases validated that day less what they gave up, less the operator’s commission. In back mode the money is yours at your PSP: gross and payout are the net, with no commission.',
    from: 'From',
    to: 'To',
    show: 'Show',
    csv: 'Download as CSV',
    chartOf: (currency: string) => `Net per day, in ${currency}`,
    chartTitle: (currency: string, from: string, to: string) => `Net per day in ${currency}, ${from} to ${to}; the figures are in the table below`,
    table: 'The figures, day by day',
    pspAccount: 'PSP account',
    builtInSandbox: 'built-in sandbox PSP',
    currency: 'Currency',
    captured: 'Captured',
    refunded: 'Refunded',
    chargedBack: 'Charged back',
    fees: 'Shopper fees',
    net: 'Net',
    gross: 'Gross',
    commission: 'Commission',
    payout: 'Payout',
    outcomes: 'Purchases: paid · failed · cancelled · refunded',
    nothing: 'Nothing happened in this period.',
    tooMany: (n: number) => `Only the first ${n} rows are shown: download the CSV for the whole period.`,
    badPeriod: 'The period is not valid: ',
  },
};

export const REPORTS_TEXT_FR: typeof REPORTS_TEXT_EN = {
  report: {
    title: 'Rapport quotidien',
    intro: (zone) =>
      `Par jour, compte PSP et devise\u00a0: ce qui a été encaissé, remboursé et repris par rétrofacturation, les frais facturés aux acheteurs, le net, et les achats arrivés à chaque état. Jours du fuseau ${zone}, celui du compte.`,
    payoutNote:
      'Le solde net est ce que le compte PSP a gardé. En mode transfert, ce compte est celui de l’opérateur\u00a0: ce qui vous est versé est la colonne Versement, le brut des achats validés ce jour-là moins ce qu’ils ont rendu, moins la commission de l’opérateur. En mode back, l’argent est à vous chez votre PSP\u00a0: le brut et le versement sont le net, sans commission.',
    from: 'Du',
    to: 'Au',
    show: 'Afficher',
    csv: 'Télécharger en CSV',
    chartOf: (currency) => `Net par jour, en ${currency}`,
    chartTitle: (currency, from, to) => `Net par jour en ${currency}, du ${from} au ${to}\u00a0; les chiffres sont dans le tableau ci-dessous`,
    table: 'Les chiffres, jour par jour',
    pspAccount: 'Compte PSP',
    builtInSandbox: 'PSP de test intégré',
    currency: 'Devise',
    captured: 'Encaissé',
    refunded: 'Remboursé',
    chargedBack: 'Rétrofacturé',
    fees: 'Frais acheteurs',
    net: 'Solde net',
    gross: 'Brut',
    commission: 'Commission',
    payout: 'Versement',
    outcomes: 'Achats\u00a0: payés · échoués · annulés · remboursés',
    nothing: 'Rien ne s’est passé sur cette période.',
    tooMany: (n) => `Seules les ${n} premières lignes sont affichées\u00a0: téléchargez le CSV pour toute la période.`,
    badPeriod: 'La période n’est pas valide\u00a0: ',
  },
};
