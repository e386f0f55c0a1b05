/**
 * The e-mail each admin of an account gets when its payout bank details change
 * (docs/money-operations.md#bank-details): who changed them, the IBAN before and after, masked
 * (`FR76 •••• •••• 0189`, never whole), and until when payouts are held. The admins' languages are
 * not known: English, then French. Times in UTC.
 */
export function bankDetailsChangedMail(v: { by: string; fromIban: string | null; toIban: string; holdUntil: Date | null; at: Date }): { subject: string; text: string } {
  const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const en = [
    `The bank details your payouts are sent to were changed by ${v.by} on ${utc(v.at)}.`,
    `IBAN before: ${v.fromIban ?? 'none'}`,
    `IBAN now: ${v.toIban}`,
    ...(v.holdUntil ? [`Payouts are held until ${utc(v.holdUntil)}.`] : []),
    'If you did not make this change, tell the operator at once and change your password.',
  ];
  const fr = [
    `Les coordonnées bancaires où sont versés vos paiements ont été modifiées par ${v.by} le ${utc(v.at)}.`,
    `IBAN précédent : ${v.fromIban ?? 'aucun'}`,
    `IBAN actuel : ${v.toIban}`,
    ...(v.holdUntil ? [`Les versements sont retenus jusqu’au ${utc(v.holdUntil)}.`] : []),
    'Si vous n’êtes pas à l’origine de ce changement, prévenez l’opérateur immédiatement et changez votre mot de passe.',
  ];
  return { subject: 'Payout bank details changed / Coordonnées bancaires modifiées', text: [...en, '', ...fr].join('\n') + '\n' };
}
