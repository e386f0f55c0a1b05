/**
 * What a new dashboard password must be (a person's own choice: the generated ones are 20
 * characters). Long rather than complex (NIST SP 800-63B §5.1.1.2): at least 12 characters, at
 * most 1,024 (scrypt's input), and never the e-mail itself. Counted in code points.
 */
const PASSWORD_MIN = 12;
const PASSWORD_MAX = 1024;

export function newPasswordProblem(password: string, email: string): 'too_short' | 'too_long' | 'is_email' | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return 'too_short';
  if (length > PASSWORD_MAX) return 'too_long';
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return 'is_email';
  return undefined;
}
