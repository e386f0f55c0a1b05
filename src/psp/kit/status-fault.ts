import { PspIntegrationError } from '../connector.ts';

/**
 * The one mapping of a PSP's HTTP status to the contract's faults, for every connector:
 * - 401 and 403: `bad_credentials` (the PSP refused who we are, or what this credential may do);
 * - 429 and 5xx: `unreachable`. The PSP may or may not have acted on the request, so the outcome
 *   is unknown: the operation log keeps the call `started` and a retry replays it with the same
 *   idempotency key (src/psp/kit/operations.ts), which is safe; calling it refused when it may
 *   have gone through is not.
 * Any other status is the caller's to read (undefined here). A connector whose PSP documents
 * another meaning for one of these statuses says so at its call site.
 * `detail` (e.g. `, errorCode 010`) is appended to the message; it must hold no credential.
 */
export function statusFault(psp: string, what: string, status: number, detail = ''): PspIntegrationError | undefined {
  if (status === 401 || status === 403) return new PspIntegrationError(psp, 'bad_credentials', `${what}: the credentials were refused (HTTP ${status}${detail})`);
  if (status === 429 || status >= 500) return new PspIntegrationError(psp, 'unreachable', `${what}: HTTP ${status}${detail}, outcome unknown`);
  return undefined;
}
