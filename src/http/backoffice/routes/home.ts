import { homePage } from '../pages/home-page.ts';
import { homeStats } from '../../../use-cases/back-office/home-stats.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { sendPage, signedIn } from './support.ts';

const PAGE = { schema: { hide: true } };

/**
 * Back office: the home page, where sign-in lands. The signed-in account's last 30 days at a
 * glance; "today" is the service clock's (the sandbox may have moved it forward).
 */
export function registerDashboardHome(app: App, services: Services, sessions: DashboardSessions): void {
  app.get('/dashboard', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    return sendPage(reply, 200, homePage(ctx.chrome, await homeStats(services.reads, ctx.session.accountId, services.clock.now(), ctx.chrome.timeZone)));
  });
}
