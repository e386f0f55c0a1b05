/** The words of the Settings page (`settings-page.ts`), in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const SETTINGS_TEXT_EN = {
  timeZone: 'Time zone',
  timeZoneHint:
    'Every date and time is shown in this zone, and says so: on the payment pages, in the e-mails and SMS to shoppers, in the sandbox inbox and here. A name such as Europe/Paris or America/New_York.',
  timeZoneNow: (now: string) => `Now in this zone: ${now}.`,
  timeZoneDays: 'The home page’s days and the purchases’ date filters are days of this time zone.',
  timeZoneSaved: 'Settings saved.',
  saveTimeZone: 'Save the settings',
  badTimeZone: (typed: string) => `Time zone: "${typed}" is not a time zone name such as Europe/Paris. Nothing was changed.`,
  country: 'Country',
  countryHint: (fallback: string) =>
    `Where a phone number your shoppers type without its international prefix (06 12 34 56 78) is read, when their own country is not known: a two-letter code such as FR or GB. Empty: ${fallback}, this service’s default.`,
  badCountry: (typed: string) => `Country: "${typed}" is not a two-letter country code such as FR or GB. Nothing was changed.`,
};

export const SETTINGS_TEXT_FR: typeof SETTINGS_TEXT_EN = {
  timeZone: 'Fuseau horaire',
  timeZoneHint:
    'Les dates et heures sont affichées dans ce fuseau, en le précisant\u00a0: sur les pages de paiement, dans les e-mails et SMS aux clients, dans la boîte de réception du bac à sable et ici. Un nom comme Europe/Paris ou America/New_York.',
  timeZoneNow: (now) => `Maintenant dans ce fuseau\u00a0: ${now}.`,
  timeZoneDays: 'Les jours de l’accueil et les filtres de dates des achats sont des jours de ce fuseau.',
  timeZoneSaved: 'Réglages enregistrés.',
  saveTimeZone: 'Enregistrer les réglages',
  badTimeZone: (typed) => `Fuseau horaire\u00a0: «\u00a0${typed}\u00a0» n’est pas un nom de fuseau comme Europe/Paris. Rien n’a été changé.`,
  country: 'Pays',
  countryHint: (fallback) =>
    `Où lire un numéro de téléphone saisi par vos clients sans son indicatif international (06 12 34 56 78), quand leur propre pays n’est pas connu\u00a0: un code de deux lettres comme FR ou GB. Vide\u00a0: ${fallback}, le choix par défaut de ce service.`,
  badCountry: (typed) => `Pays\u00a0: «\u00a0${typed}\u00a0» n’est pas un code de pays de deux lettres comme FR ou GB. Rien n’a été changé.`,
};
