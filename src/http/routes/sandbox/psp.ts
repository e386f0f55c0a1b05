import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { CHALLENGE_CSP } from '../../../pages/html.ts';
import { challengeLang, challengeMessagePage, challengePage, returnLink } from '../../../psp/sandbox/challenge-page.ts';
import { langFromAcceptLanguage } from '../../../i18n/lang.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';

const Params = Type.Object({ transaction_id: Type.String({ maxLength: 100 }) });

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').headers({ 'content-security-policy': CHALLENGE_CSP, 'cache-control': 'no-store' }).send(body);
}

const NOT_FOUND = ['Authentication not found', 'There is no 3-D Secure check at this address. Go back to the shop and try the payment again.'] as const;

/**
 * The sandbox PSP's 3-D Secure challenge page (the `challengeUrl` of a `requires_action`
 * transaction). The transaction id in the URL is the capability to see it; the form carries a
 * random per-transaction token, checked on POST, so another site cannot complete or fail a
 * challenge on the shopper's behalf. Registered in sandbox deployments only (src/http/routes/index.ts):
 * production takes no payment on the sandbox PSP.
 */
export function registerSandboxPsp(app: App, { psps }: Services): void {
  const sandbox = psps.sandbox;

  app.get('/sandbox-psp/challenge/:transaction_id', { schema: { hide: true, params: Params } }, async (request, reply) => {
    const view = await sandbox.challengeView(request.params.transaction_id);
    if (!view) return html(reply, 404, challengeMessagePage(...NOT_FOUND));
    const own = (request.query as { lang?: unknown } | undefined)?.lang;
    return html(reply, 200, challengePage(view, challengeLang(view.returnUrl, langFromAcceptLanguage(request.headers['accept-language']), own)));
  });

  app.post('/sandbox-psp/challenge/:transaction_id', { schema: { hide: true, params: Params } }, async (request, reply) => {
    const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
    const outcome = body.outcome;
    if (outcome !== 'complete' && outcome !== 'fail') {
      return html(reply, 400, challengeMessagePage('Choose an outcome', 'Use one of the two buttons of the authentication page.'));
    }
    const token = typeof body.token === 'string' ? body.token : '';
    const id = request.params.transaction_id;
    const result = await sandbox.resolveChallenge(id, token, outcome);
    if (!result.ok) {
      if (result.reason === 'unknown_transaction') return html(reply, 404, challengeMessagePage(...NOT_FOUND));
      return html(reply, 403, challengeMessagePage('Form expired or forged', 'This form was not issued for this payment. Reload the authentication page and try again.'));
    }
    return reply.header('cache-control', 'no-store').redirect(returnLink(result.returnUrl, id), 303);
  });
}
