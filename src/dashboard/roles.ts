/** A back-office user's role (docs/back-office.md#roles). */
export type Role = 'admin' | 'support';

export const ROLES: readonly Role[] = ['admin', 'support'];

/** Pages an admin only may open, any method: the prefix covers every page added below it later. */
const ADMIN_PAGES = ['/dashboard/developers', '/dashboard/offers', '/dashboard/psp-accounts', '/dashboard/team'];
/** Back-office API routes an admin only may call, any method. */
const ADMIN_API = ['/api/backoffice/webhook', '/api/backoffice/psp_accounts', '/api/backoffice/psps', '/api/backoffice/api_keys', '/api/backoffice/api-keys', '/api/backoffice/keys'];
/** Back-office API routes a support user may read but not change. */
const ADMIN_API_WRITES = ['/api/backoffice/deliveries', '/api/backoffice/offers'];

/** `path` is `prefix` itself or a path below it (`/dashboard/team/x`, not `/dashboard/teams`). */
function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Whether a request is reserved to admins: the one rule every back-office entry (pages, API with
 * the cookie or Basic) applies, by URL prefix, so a page or route added later under a prefix is
 * covered without touching its code. Support staff read purchases, refund and cancel; they do not
 * change what the account sends, charges or who works on it.
 */
export function adminOnly(method: string, url: string): boolean {
  const path = new URL(url, 'http://x').pathname.replace(/\/+$/, '') || '/';
  if (ADMIN_PAGES.some((p) => under(path, p)) || ADMIN_API.some((p) => under(path, p))) return true;
  const reads = method === 'GET' || method === 'HEAD';
  return !reads && ADMIN_API_WRITES.some((p) => under(path, p));
}
