import type { FastifyReply } from 'fastify';
import { actorOf } from '../../../audit/audit-log.ts';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import type { Services } from '../../../services.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { exportedFile, exportedFileName, exportPayouts, markFileSent, operatorPayoutsView } from '../../../use-cases/payouts/payout-export.ts';
import type { App } from '../../types.ts';
import type { Chrome } from '../pages/layout.ts';
import { operatorPayoutsPage, type OperatorNotice } from '../pages/operator-page.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };
/** Payouts not yet in a file, and files, the page shows at most (`chipin payout list` has the rest). */
const SHOWN = { created: 200, exports: 50 };

/**
 * The operator's pages of the back office (the `operator` role only: everyone else is refused by
 * role in `signedIn`, docs/back-office.md#the-operators-pages): the payouts' SEPA files of every
 * merchant, made, downloaded and marked as sent through the command line's own use cases
 * (`exportPayouts`, `exportedFile`, `markPayout`), each action audited on every merchant it
 * concerns, by the staff member, in the action's transaction.
 */
export function registerDashboardOperator(app: App, services: Services, sessions: DashboardSessions): void {
  const exportDeps = { db: services.db, box: services.box, clock: services.clock };
  const payoutDeps = { db: services.db, clock: services.clock, logger: app.log };

  async function page(reply: FastifyReply, chrome: Chrome, status: number, notice?: OperatorNotice): Promise<FastifyReply> {
    const view = await operatorPayoutsView(services.db, SHOWN);
    return sendPage(reply, status, operatorPayoutsPage(chrome, { ...view, shownFiles: SHOWN.exports, canExport: services.config.operatorDebtor !== undefined }, notice));
  }

  function notFound(reply: FastifyReply, chrome: Chrome): FastifyReply {
    const t = DASHBOARD_TEXT[chrome.lang];
    return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.operator.notFound));
  }

  app.get('/dashboard/operator/payouts', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    return page(reply, ctx.chrome, 200);
  });

  // `chipin payout export`'s use case: the euro payouts created become one file, exported.
  app.post('/dashboard/operator/payouts/exports', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const t = DASHBOARD_TEXT[ctx.chrome.lang].operator;
    const debtor = services.config.operatorDebtor;
    if (!debtor) return page(reply, ctx.chrome, 409, { kind: 'alert', text: t.noDebtor });
    const outcome = await exportPayouts(exportDeps, { debtor, format: services.config.payoutPainFormat ?? 'pain.001.001.09' }, { actor: actorOf(ctx.session) });
    if (outcome.kind === 'nothing') return page(reply, ctx.chrome, 200, { kind: 'ok', text: t.nothingToExport });
    return page(reply, ctx.chrome, 200, { kind: 'ok', text: t.fileMade(outcome.messageId, outcome.payouts.length) });
  });

  // `chipin payout file`'s use case: the file as it was made, as the command line writes it.
  app.get('/dashboard/operator/payouts/exports/:export_id/file', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const id = parsePublicId('pex', (request.params as { export_id: string }).export_id);
    // A HEAD (Fastify's twin of this GET) reads the name only: nothing is downloaded, nothing audited.
    const file = !id
      ? undefined
      : request.method === 'HEAD'
        ? await exportedFileName(services.db, id).then((messageId) => messageId && { messageId, xml: '' })
        : await exportedFile(exportDeps, id, actorOf(ctx.session));
    if (!file) return notFound(reply, ctx.chrome);
    return reply
      .code(200)
      .type('application/xml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${file.messageId}.xml"`)
      .header('cache-control', 'no-store')
      .send(request.method === 'HEAD' ? '' : `${file.xml}\n`);
  });

  // `chipin payout mark --status sent`'s use case, for each payout of the file not yet sent.
  app.post('/dashboard/operator/payouts/exports/:export_id/sent', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const t = DASHBOARD_TEXT[ctx.chrome.lang].operator;
    const id = parsePublicId('pex', (request.params as { export_id: string }).export_id);
    const outcome = id ? await markFileSent(payoutDeps, id, actorOf(ctx.session)) : ({ kind: 'not_found' } as const);
    if (outcome.kind === 'not_found') return notFound(reply, ctx.chrome);
    const refused = outcome.refused.map((r) => `${toPublicId('po', r.payout.id)}: ${r.message}`);
    const marked = t.marked(outcome.messageId, outcome.marked.length);
    return page(reply, ctx.chrome, 200, {
      kind: refused.length ? 'alert' : 'ok',
      text: refused.length ? `${marked} ${t.markRefused(refused.length)}` : marked,
      ...(refused.length ? { details: refused } : {}),
    });
  });
}
