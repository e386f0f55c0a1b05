import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../services.ts';
import { receivePspNotification } from '../../../use-cases/reconciliation/psp-notification.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { App } from '../../types.ts';
import { TokenApiError } from '../schemas.ts';

/**
 * Inbound notifications of merchants' PSPs (back mode,
 * docs/psp-connectors.md#inbound-notifications): one URL per PSP account, set in the PSP's back
 * office. No credentials: the connector checks the PSP's signature and freshness on the raw body; a
 * refused one changes nothing. Answered the way the PSP expects (the connector's `ack`, else 200
 * with an empty body).
 */
export function registerPspNotifications(app: App, services: Services): void {
  void app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // The signature is over the exact bytes: every body is kept as text, whatever its type.
    plugin.removeAllContentTypeParsers();
    plugin.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));

    const params = Type.Object({ psa_id: Type.String({ maxLength: 64 }) });
    const responses = {
      200: Type.String({ description: "Accepted: the PSP's expected acknowledgement, or an empty body" }),
      401: { ...TokenApiError, description: '`invalid_signature`: bad or stale signature; nothing changed' },
      400: { ...TokenApiError, description: 'The notification could not be read' },
      404: { ...TokenApiError, description: 'No such PSP account' },
      503: {
        ...TokenApiError,
        description:
          "`not_ready`: a dispute notice to an operator's collecting account about a transaction Chipin has not recorded yet; the PSP sends it again (docs/money-operations.md#transfer-mode). " +
          '`psp_unavailable` (with Retry-After): the PSP account holds a credential its connector cannot use, which this notification needs; nothing changed, the PSP sends it again (docs/psp-connectors.md#credential-checks)',
      },
    };

    /** One notification, its signed text being the body (POST) or the query string (GET). */
    async function receive(request: Pick<FastifyRequest, 'headers' | 'log'> & { params: { psa_id: string } }, reply: FastifyReply, rawBody: string) {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
      const outcome = await receivePspNotification({ ...services.payments, registry: services.psps }, request.params.psa_id, { headers, rawBody });
      switch (outcome.kind) {
        case 'not_found':
          throw notFound('PSP account');
        case 'refused':
          request.log.info({ psp_account_id: request.params.psa_id, reason: outcome.reason }, 'PSP notification refused');
          if (outcome.reason === 'malformed') throw new ApiError(400, 'invalid_request', 'the notification could not be read');
          throw new ApiError(401, 'invalid_signature', `the notification's signature is ${outcome.reason === 'stale' ? 'too old' : 'not valid'}`);
        case 'retry_later':
          reply.header('retry-after', '60');
          throw new ApiError(503, 'not_ready', 'the transaction this notice names is not recorded yet: send it again later');
        case 'unusable_credential':
          // The merchant's account needs fixing (its back office shows it), not the PSP's message:
          // every PSP that signs its notifications sends a refused one again, for days.
          reply.header('retry-after', '3600');
          throw new ApiError(503, 'psp_unavailable', `this PSP account's ${outcome.field} cannot be used until its merchant fixes it: send the notification again later`);
        case 'accepted':
          if (outcome.ack)
            return reply
              .code(outcome.ack.status as 200)
              .type(outcome.ack.contentType)
              .send(outcome.ack.body);
          return reply.code(200).type('text/plain; charset=utf-8').send('');
      }
    }

    scope.post(
      '/api/psp/:psa_id/notifications',
      {
        schema: {
          tags: ['psp notifications'],
          security: [],
          summary: "Receive a notification from a merchant's PSP",
          description:
            "Set this URL in the PSP's back office for the PSP account `psa_id`. The body is read as sent (any content type) and checked by " +
            "that PSP's connector (signature, freshness); the transaction it names is then read from the PSP and recorded once. The answer is what the PSP expects.",
          params,
          response: responses,
        },
      },
      async (request, reply) => receive(request, reply, typeof request.body === 'string' ? request.body : ''),
    );

    // Some PSPs call back with a GET whose query string is the signed message (PayBox's RemoteMPI
    // return, docs/psp/paybox.md): the same check, on the query string exactly as sent.
    scope.get(
      '/api/psp/:psa_id/notifications',
      {
        schema: {
          tags: ['psp notifications'],
          security: [],
          summary: "Receive a notification a merchant's PSP sends as a GET",
          description: 'The same URL, for the PSPs that call it with a GET: the query string, exactly as sent, is the signed message the connector checks.',
          params,
          querystring: Type.Object({}, { additionalProperties: true }),
          response: responses,
        },
      },
      async (request, reply) => {
        const url = request.raw.url ?? '';
        const at = url.indexOf('?');
        return receive(request, reply, at < 0 ? '' : url.slice(at + 1));
      },
    );
  });
}
