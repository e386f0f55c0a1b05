import { settingsPage, type SettingsView } from '../pages/settings-page.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { DEFAULT_MERCHANT_COUNTRY } from '../../../config.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };

/**
 * The account's settings (admins, docs/back-office.md#time-zone): its time zone, in which its
 * pages, messages, sandbox inbox and back office show every date with a time, and its country,
 * where the national phone numbers its shoppers type are read.
 */
export function registerDashboardSettings(app: App, services: Services, sessions: DashboardSessions): void {
  const fallback = services.config.merchantCountry ?? DEFAULT_MERCHANT_COUNTRY;
  // The country as the request's chrome read it (one read of the account a request).
  const viewOf = (profile: { country: string | null } | undefined): SettingsView => ({ country: profile?.country ?? null, fallback });

  app.get('/dashboard/settings', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    return sendPage(reply, 200, settingsPage(ctx.chrome, services.clock.now(), viewOf(ctx.profile)));
  });

  app.post('/dashboard/settings', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, profile, form } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const typed = { timeZone: (form.time_zone ?? '').slice(0, 200), country: form.country?.slice(0, 20) };
    const saved = await services.accounts.saveSettings(session, typed);
    if (!saved.ok) {
      const shown = { timeZone: typed.timeZone, country: typed.country ?? '' };
      const error = saved.field === 'time_zone' ? t.badTimeZone(shown.timeZone) : t.badCountry(shown.country);
      return sendPage(reply, 400, settingsPage(chrome, services.clock.now(), viewOf(profile), { field: saved.field, error, typed: shown }));
    }
    // Offers carry the zone and the country to the pages and messages: this process's copy goes
    // now, other processes' within the cache's 5 s (src/accounts/offers.ts).
    services.offers.forget(session.accountId);
    request.log.info({ account_id: session.accountId, user_id: session.userId, time_zone: saved.timeZone }, 'account settings saved');
    // This page already shows times in the new zone.
    return sendPage(reply, 200, settingsPage({ ...chrome, timeZone: saved.timeZone }, services.clock.now(), viewOf({ country: saved.country }), { saved: true }));
  });
}
