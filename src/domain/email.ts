/**
 * The one check of an e-mail address Chipin applies (dashboard logins, `mailto:` notification
 * targets, MAIL_FROM). Deliberately plain: one `@`, no spaces, a dot in the domain, and none of
 * the characters that would open a display name or a second address (`<>",;()\`). Full RFC 5322
 * admits addresses no mail server delivers to, and a list separator would add recipients.
 */
const ADDRESS = /^[^\s@<>",;()\\]+@[^\s@<>",;()\\]+\.[^\s@<>",;()\\]+$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= 254 && ADDRESS.test(value);
}
