import { adminOnly, operatorOnly, under } from './backoffice/roles.ts';

/**
 * Who may call a route, as a function of the route alone: its template as registered and its
 * method (and `config.auth`), never a request's URL (docs/security.md#the-one-path-rule). The
 * server records it for every route (`registeredRoutes` in ./server.ts), docs/security.md's table
 * is generated from that record, and test/http/route-walk.test.ts checks every route answers each
 * caller as it says.
 *
 * - `anyone`: no credentials asked by a guard (a hosted page's unguessable link, the token
 *   endpoint that checks the API key itself, probes, static files);
 * - `api_key`: an access token of `POST /api/token` (`config.auth = 'bearer'`, checked by the
 *   server's `onRequest` hook);
 * - `staff`: a back-office user of any role (support, admin, or the operator's staff);
 * - `admin`: a back-office admin only ({@link adminOnly});
 * - `operator`: the operator's staff only, the back office's `operator` role ({@link operatorOnly}):
 *   the operator's pages, across merchants;
 * - `shopper`: a shopper signed in to their space (docs/shopper-space.md), whatever the purchase:
 *   each page then answers only the purchases the shopper is party to (404 otherwise).
 */
export type Who = 'anyone' | 'api_key' | 'staff' | 'admin' | 'operator' | 'shopper';

/** How a caller proves who they are on a route, for the reader of docs/security.md. */
type Credentials = 'none' | 'access token' | 'session cookie' | 'Basic or session cookie' | 'shopper session cookie';

export interface RouteAccess {
  who: Who;
  credentials: Credentials;
}

/**
 * The route families taking back-office credentials, by template prefix, first match wins. The
 * pages check the session in `signedIn` (src/http/backoffice/routes/support.ts), the back-office
 * API and the sandbox inbox in the `DashboardGuard`; each of them applies {@link adminOnly} and
 * {@link operatorOnly} to the same template.
 */
const BACK_OFFICE: readonly { prefix: string; credentials: Credentials | 'none' }[] = [
  // The sign-in form, and an invitation link (its 256-bit token is the credential).
  { prefix: '/dashboard/sign-in', credentials: 'none' },
  { prefix: '/dashboard/invitation', credentials: 'none' },
  { prefix: '/dashboard', credentials: 'session cookie' },
  { prefix: '/api/backoffice', credentials: 'Basic or session cookie' },
  { prefix: '/sandbox/inbox', credentials: 'Basic or session cookie' },
];

/**
 * The shopper's space: its sign-in form, code form and links ask for nothing (the link's 256-bit
 * token, or the code with the browser's cookie, is the credential); every other page the session
 * of `requireShopper` (src/http/routes/shopper-space/guard.ts).
 */
const SPACE_OPEN = ['/space/sign-in', '/space/sign-out'];

export function routeAccess(method: string, route: string, auth: string | undefined): RouteAccess {
  if (auth === 'bearer') return { who: 'api_key', credentials: 'access token' };
  if (under(route, '/space')) {
    return SPACE_OPEN.some((p) => under(route, p)) ? { who: 'anyone', credentials: 'none' } : { who: 'shopper', credentials: 'shopper session cookie' };
  }
  const family = BACK_OFFICE.find((f) => under(route, f.prefix));
  if (!family || family.credentials === 'none') return { who: 'anyone', credentials: 'none' };
  return { who: operatorOnly(route) ? 'operator' : adminOnly(method, route) ? 'admin' : 'staff', credentials: family.credentials };
}
