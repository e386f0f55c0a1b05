import type { MerchantRole, Role } from '../../domain/roles.ts';

/** The merchant's roles: what the Team page invites and sets (an operator is made by the operator's command line only). */
export const ROLES: readonly MerchantRole[] = ['admin', 'support'];

/**
 * The operator's pages (docs/back-office.md#the-operators-pages): the payouts' SEPA files of every
 * merchant. Only the `operator` role opens them, whatever the method; an admin or support user of a
 * merchant is refused them by role, as the operator is refused a merchant's admin pages.
 */
const OPERATOR_PAGES = ['/dashboard/operator'];

/** Pages an admin only may open, any method: the prefix covers every page added below it later. */
const ADMIN_PAGES = ['/dashboard/developers', '/dashboard/offers', '/dashboard/payouts', '/dashboard/psp-accounts', '/dashboard/reports', '/dashboard/settings', '/dashboard/team'];
/** Back-office API routes an admin only may call, any method. */
const ADMIN_API = [
  '/api/backoffice/balance',
  '/api/backoffice/payout_bank_details',
  '/api/backoffice/payouts',
  '/api/backoffice/webhook',
  '/api/backoffice/psp_accounts',
  '/api/backoffice/psps',
  '/api/backoffice/reports',
  '/api/backoffice/risk_rules',
  '/api/backoffice/risk_scoring_hook',
];
/** Pages a support user may read but not post to (their forms are an admin's). */
const ADMIN_PAGE_WRITES = ['/dashboard/reconciliation'];
/** Back-office API routes a support user may read but not change. */
const ADMIN_API_WRITES = ['/api/backoffice/deliveries', '/api/backoffice/offers', '/api/backoffice/reconciliation_mismatches', '/api/backoffice/reconciliation_runs'];

/** `route` is `prefix` itself or a route below it (`/dashboard/team/:id`, not `/dashboard/teams`). */
export function under(route: string, prefix: string): boolean {
  return route === prefix || route.startsWith(`${prefix}/`);
}

/** Whether a route is the operator's staff's only, by prefix of its template (undefined: no matched route, refused). */
export function operatorOnly(route: string | undefined): boolean {
  return route !== undefined && OPERATOR_PAGES.some((p) => under(route, p));
}

/**
 * Whether a user of `role` is refused a route by role: the operator's pages to anyone but the
 * operator's staff, the admin-only ones ({@link adminOnly}) to anyone but an admin. The one rule
 * `signedIn` (the pages) and the `DashboardGuard` (the API, the sandbox inbox) apply.
 */
export function refusedByRole(role: Role, method: string, route: string | undefined): boolean {
  if (operatorOnly(route)) return role !== 'operator';
  return role !== 'admin' && adminOnly(method, route);
}

/**
 * Whether a route is reserved to admins: the one rule every back-office entry (pages, API with
 * the cookie or Basic) applies, by prefix of the route's TEMPLATE as registered
 * (`request.routeOptions.url`, `/dashboard/team/members/:id`), so a page or route added later under
 * a prefix is covered without touching its code. Never pass the request's URL: the router decodes
 * it before matching (`/dashboard/%74eam` is the Team page), so only the matched route says which
 * page was asked for (docs/security.md#the-one-path-rule). No matched route (undefined) is
 * admin-only: a caller that has none refuses rather than lets through.
 *
 * Support staff read purchases, refund and cancel; they do not change what the account sends,
 * charges or who works on it, nor read its finance reports (the account's takings per day, its
 * balance and payouts in transfer mode, where they are paid: docs/back-office.md#roles).
 */
export function adminOnly(method: string, route: string | undefined): boolean {
  if (route === undefined) return true;
  if (ADMIN_PAGES.some((p) => under(route, p)) || ADMIN_API.some((p) => under(route, p))) return true;
  const reads = method === 'GET' || method === 'HEAD';
  return !reads && (ADMIN_API_WRITES.some((p) => under(route, p)) || ADMIN_PAGE_WRITES.some((p) => under(route, p)));
}
