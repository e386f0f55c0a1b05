/**
 * Signatures of the sandbox PSP's notifications, modelled on the common PSP scheme:
 * `sandbox-psp-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` where the MAC covers
 * `<t>.<raw body>`. The scheme itself (and its 5-minute freshness window) is
 * src/domain/timestamped-signature.ts, shared with the external scoring hook.
 */
export { checkTimestamped as checkSignature, signTimestamped as signNotification } from '../../domain/timestamped-signature.ts';

export const SIGNATURE_HEADER = 'sandbox-psp-signature';

/** Header lookup regardless of case: frameworks and proxies differ. */
export function headerValue(headers: Record<string, string | undefined>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}
