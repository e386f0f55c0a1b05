/** The words of the password page (`password-page.ts`), in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const PASSWORD_TEXT_EN = {
  changePassword: 'Change my password',
  currentPassword: 'Current password',
  passwordHint: 'At least 12 characters. Your other sessions are signed out when it changes.',
  passwordChanged: 'Password changed. Your other sessions are signed out.',
  wrongCurrentPassword: 'Current password: this is not your current password. Nothing was changed.',
};

export const PASSWORD_TEXT_FR: typeof PASSWORD_TEXT_EN = {
  changePassword: 'Changer mon mot de passe',
  currentPassword: 'Mot de passe actuel',
  passwordHint: 'Au moins 12 caractères. Vos autres sessions sont déconnectées au changement.',
  passwordChanged: 'Mot de passe changé. Vos autres sessions sont déconnectées.',
  wrongCurrentPassword: 'Mot de passe actuel\u00a0: ce n’est pas votre mot de passe actuel. Rien n’a été changé.',
};
