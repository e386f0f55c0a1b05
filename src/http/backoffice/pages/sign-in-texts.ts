/** The words of the sign-in page (`sign-in-page.ts`), in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const SIGN_IN_TEXT_EN = {
  signInTitle: 'Sign in',
  password: 'Password',
  signIn: 'Sign in',
  wrongCredentials: 'Wrong e-mail or password.',
  missingCredentials: 'Enter your e-mail and password.',
  invalidText: 'The e-mail or password contains a character that is not allowed.',
};

export const SIGN_IN_TEXT_FR: typeof SIGN_IN_TEXT_EN = {
  signInTitle: 'Connexion',
  password: 'Mot de passe',
  signIn: 'Se connecter',
  wrongCredentials: 'E-mail ou mot de passe incorrect.',
  missingCredentials: 'Saisissez votre e-mail et votre mot de passe.',
  invalidText: 'L’e-mail ou le mot de passe contient un caractère non autorisé.',
};
