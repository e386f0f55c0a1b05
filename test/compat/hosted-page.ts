/**
 * The shopper's side of a plugin checkout, over HTTP as a browser would: follow the plugin's
 * redirect to Chipin's hosted page, submit a card there, follow the answers. Nothing here is a
 * plugin's: the plugins hand the shopper over and wait for the notification and the return.
 */
import type { TestApp } from '../helpers/app.ts';

export interface PageVisit {
  path: string;
  cookie: string;
  body: string;
}

function cookieOf(headers: Record<string, unknown>, previous = ''): string {
  const set = headers['set-cookie'];
  const first = (Array.isArray(set) ? set : set ? [String(set)] : []).map((c) => c.split(';')[0]!);
  return [previous, ...first].filter(Boolean).join('; ');
}

/** Opens the hosted page a plugin's redirect pointed at (`location`, absolute or not). */
export async function openPage(app: TestApp, location: string): Promise<PageVisit> {
  const url = new URL(location, 'http://chipin.invalid');
  const res = await app.server.inject({ url: url.pathname + url.search });
  if (res.statusCode !== 200) throw new Error(`GET ${url.pathname}: ${res.statusCode}`);
  return { path: url.pathname + url.search, cookie: cookieOf(res.headers), body: res.body };
}

/** Submits the page's card form with `cardNumber` (the hidden fields as the page wrote them); answers the raw response. */
export async function submitCard(app: TestApp, visit: PageVisit, cardNumber: string) {
  const form = (visit.body.match(/<form[\s\S]*?<\/form>/gi) ?? []).find((f) => f.includes('name="card_number"'));
  if (!form) throw new Error(`no card form on ${visit.path}`);
  const hidden = [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, n, v]): [string, string] => [n!, v!.replaceAll('&amp;', '&')]);
  const fields = new URLSearchParams([...hidden, ['holder_name', 'Léa Martin'], ['card_number', cardNumber], ['card_expiry', '12/30'], ['card_cvc', '123']]);
  const action = /<form[^>]*action="([^"]+)"/.exec(form)?.[1]?.replaceAll('&amp;', '&') ?? visit.path;
  return app.server.inject({
    method: 'POST',
    url: action,
    headers: { cookie: visit.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: fields.toString(),
  });
}
