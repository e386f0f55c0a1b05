import { Type } from 'typebox';
import { catalogueOf, namesReachedBy } from '../../../psp/catalogue.ts';
import type { Services } from '../../../services.ts';
import { createPspAccount, deletePspAccount, getPspAccount, listPspAccounts, updatePspAccount, type PspAccountOutcome } from '../../../use-cases/psp-accounts.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import { ApiError, notFound } from '../../errors.ts';
import type { App } from '../../types.ts';
import { BackofficeErrors } from './webhook.ts';
import { TokenApiError } from '../../routes/schemas.ts';

const SECURITY = [{ apiKeyBasic: [] }];
const AUTH_NOTE =
  'HTTP Basic with the merchant dashboard e-mail and password (not the API key), or the back-office session cookie (writes then need the `X-CSRF-Token` header: docs/authentication.md).';

const CredentialField = Type.Object({
  name: Type.String(),
  secret: Type.Boolean({ description: 'Never returned after saving: reads show `…` and its last 4 characters' }),
  required: Type.Boolean(),
  pattern: Type.Optional(Type.String({ description: 'Regular expression the whole value must match' })),
  enum: Type.Optional(Type.Array(Type.String())),
  environments: Type.Optional(Type.Array(Type.String(), { description: 'Required only in these environments' })),
  description: Type.String(),
  format: Type.Optional(Type.String({ description: 'The expected format in words, as a refusal states it', examples: ['sk_test_… or sk_live_… followed by letters and digits'] })),
  after_webhook: Type.Optional(
    Type.Boolean({
      description:
        "Made by the PSP for its webhook to the account's notification URL (`/api/psp/{psa_id}/notifications`), which exists once the account is saved: optional when adding, set afterwards with PATCH; notifications are refused until it is",
    }),
  ),
});

const Psp = Type.Object(
  {
    name: Type.String({ examples: ['sandbox'] }),
    label: Type.String(),
    environments: Type.Array(Type.String({ enum: ['test', 'live'] })),
    credential_fields: Type.Array(CredentialField),
    takes_notifications: Type.Boolean({
      description:
        "false: the PSP sends no notification Chipin can verify, so there is no URL to set at it (its outcomes are read from it); true: set `/api/psp/{psa_id}/notifications` in the PSP's back office",
    }),
    reaches: Type.Array(Type.String(), {
      description:
        'The PSPs, as merchants name them, this connector reaches (for `hyperswitch`: those routed through a Hyperswitch); the whole list with each route: GET /api/backoffice/psp_catalogue',
      examples: [['Mercanet (BNP Paribas)', 'Sogenactif (Société Générale)', "Sherlock's (LCL)"]],
    }),
  },
  { title: 'Psp' },
);

const CatalogueEntry = Type.Object(
  {
    name: Type.String({ examples: ['Mercanet (BNP Paribas)'] }),
    route: Type.String({ enum: ['direct', 'via_hyperswitch', 'not_yet'] }),
    connector: Type.Union([Type.String(), Type.Null()], { description: 'The connector a PSP account names (`psp`): its own for `direct`, `hyperswitch` for `via_hyperswitch`' }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is not reached yet' }),
  },
  { title: 'PspCatalogueEntry' },
);

const PspAccount = Type.Object(
  {
    id: Type.String({ examples: ['psa_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70'] }),
    psp: Type.String(),
    environment: Type.String({ enum: ['test', 'live'] }),
    label: Type.String(),
    endpoint_url: Type.Union([Type.String(), Type.Null()], { description: "Overrides the connector's base URL for this environment" }),
    credentials: Type.Record(Type.String(), Type.String(), { description: 'Secret fields read as `…` and their last 4 characters' }),
    verified_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the PSP last accepted the credentials' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'PspAccount' },
);

const Credentials = Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 4096 }), { description: "The connector's credential fields (GET /api/backoffice/psps)" });
const Label = Type.String({ minLength: 1, maxLength: 100 });
const EndpointUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    "In production an https:// URL on one of the PSP's own hosts for the environment (another Lyra brand, Adyen live prefix), or on a host of the operator's PSP_ENDPOINT_ALLOWLIST (docs/security.md); in a sandbox deployment any https:// URL, or http://127.0.0.1 (local fakes)",
});
const Verify = Type.Object({ verify: Type.Optional(Type.Boolean({ description: 'false skips the check call to the PSP' })) }, { additionalProperties: false });
const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });

const SaveErrors = {
  400: { ...TokenApiError, description: 'Invalid input; the message names the field (`credentials.<name>`, `endpoint_url`, `psp`, `environment`)' },
  422: { ...TokenApiError, description: '`psp_credentials_rejected`: the PSP refused the credentials' },
  502: { ...TokenApiError, description: '`psp_unreachable`: the PSP could not be reached to check the credentials (nothing was saved)' },
};

function answer(outcome: PspAccountOutcome) {
  switch (outcome.kind) {
    case 'ok':
      return outcome.account;
    case 'invalid':
      return new ApiError(400, 'invalid_request', `field ${outcome.field} ${outcome.message}`);
    case 'rejected':
      return new ApiError(422, 'psp_credentials_rejected', outcome.message);
    case 'unreachable':
      return new ApiError(502, 'psp_unreachable', 'the PSP could not be reached to check the credentials; nothing was saved (retry, or save with ?verify=false)');
    case 'not_found':
      return notFound('PSP account');
  }
}

/**
 * Back office, back mode (docs/psp-connectors.md#psp-accounts): the PSP connectors of this build
 * and the account's own PSP accounts. Credentials are validated against the connector's credential
 * kind, checked with one harmless call to the PSP (unless `?verify=false`), sealed at rest, and
 * never returned: secrets read as `…` and their last 4 characters.
 */
export function registerBackofficePsps(app: App, services: Services, guard: DashboardGuard): void {
  const deps = services.pspAccounts;
  // The catalogue as this build reaches it: a route whose connector is missing reads not_yet.
  const catalogue = catalogueOf(services.psps.definitions.map((d) => d.name));
  const reached = new Set(catalogue.filter((e) => e.route.kind !== 'not_yet').map((e) => e.name));

  app.get(
    '/api/backoffice/psps',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the PSP connectors',
        description: `${AUTH_NOTE} The PSP connectors this build has (the built-in sandbox too), with the credential fields a PSP account of each needs.`,
        security: SECURITY,
        response: { 200: Type.Array(Psp), ...BackofficeErrors },
      },
    },
    async (request) => {
      await guard.accountOf(request);
      return services.psps.definitions.map((d) => ({
        name: d.name,
        label: d.label,
        environments: [...d.environments],
        credential_fields: d.credentialFields.map((f) => ({
          name: f.name,
          secret: f.secret,
          required: f.required,
          ...(f.pattern !== undefined ? { pattern: f.pattern } : {}),
          ...(f.enum ? { enum: [...f.enum] } : {}),
          ...(f.environments ? { environments: [...f.environments] } : {}),
          description: f.description,
          ...(f.format ? { format: f.format } : {}),
          ...(f.afterWebhook ? { after_webhook: true } : {}),
        })),
        takes_notifications: d.takesNotifications !== false,
        reaches: namesReachedBy(d.name).filter((n) => reached.has(n)),
      }));
    },
  );

  app.get(
    '/api/backoffice/psp_catalogue',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the PSPs a merchant may name, and how each is reached',
        description: `${AUTH_NOTE} Every PSP of the catalogue (docs/psp-connectors.md#the-psp-catalogue): reached by a connector of this build (\`direct\`), through a Hyperswitch the merchant runs or rents (\`via_hyperswitch\`, connector \`hyperswitch\`), or \`not_yet\` with the reason.`,
        security: SECURITY,
        response: { 200: Type.Array(CatalogueEntry), ...BackofficeErrors },
      },
    },
    async (request) => {
      await guard.accountOf(request);
      return catalogue.map((e) =>
        e.route.kind === 'direct'
          ? { name: e.name, route: 'direct', connector: e.route.connector, reason: null }
          : e.route.kind === 'hyperswitch'
            ? { name: e.name, route: 'via_hyperswitch', connector: 'hyperswitch', reason: null }
            : { name: e.name, route: 'not_yet', connector: null, reason: e.route.reason },
      );
    },
  );

  app.post(
    '/api/backoffice/psp_accounts',
    {
      schema: {
        tags: ['back office'],
        summary: 'Add a PSP account',
        description:
          `${AUTH_NOTE} Saves the merchant's own PSP account. The credentials are checked against the connector's fields, then with one ` +
          'harmless authenticated call to the PSP (`?verify=false` skips it), sealed at rest and never shown again: secrets read as `…` and their last 4 characters.',
        security: SECURITY,
        querystring: Verify,
        body: Type.Object(
          {
            psp: Type.String({ maxLength: 32 }),
            environment: Type.String({ enum: ['test', 'live'] }),
            label: Label,
            credentials: Credentials,
            endpoint_url: Type.Optional(Type.Union([EndpointUrl, Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 201: PspAccount, ...SaveErrors, ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const result = answer(await createPspAccount(deps, accountId, request.body, { verify: request.query.verify !== false }));
      if (result instanceof ApiError) throw result;
      return reply.code(201).header('cache-control', 'no-store').send(result);
    },
  );

  app.get(
    '/api/backoffice/psp_accounts',
    {
      schema: {
        tags: ['back office'],
        summary: 'List the PSP accounts',
        description: `${AUTH_NOTE} The account's PSP accounts, oldest first; secrets read as \`…\` and their last 4 characters.`,
        security: SECURITY,
        response: { 200: Type.Array(PspAccount), ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      void reply.header('cache-control', 'no-store');
      return listPspAccounts(deps, accountId);
    },
  );

  app.get(
    '/api/backoffice/psp_accounts/:id',
    {
      schema: {
        tags: ['back office'],
        summary: 'Read a PSP account',
        description: `${AUTH_NOTE} Secrets read as \`…\` and their last 4 characters.`,
        security: SECURITY,
        params: Params,
        response: { 200: PspAccount, 404: { ...TokenApiError, description: 'No such PSP account in this account' }, ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const account = await getPspAccount(deps, accountId, request.params.id);
      if (!account) throw notFound('PSP account');
      void reply.header('cache-control', 'no-store');
      return account;
    },
  );

  app.patch(
    '/api/backoffice/psp_accounts/:id',
    {
      schema: {
        tags: ['back office'],
        summary: 'Change a PSP account',
        description:
          `${AUTH_NOTE} Changes the label, environment, endpoint or credentials (fields given replace the saved ones, \`null\` removes one). ` +
          'Changed credentials, environment or endpoint are checked with the PSP again (`?verify=false` skips it). Offers using the account use the new settings from their next payment on. Audited (`psp_account_update`: the names of the changed settings, never a value).',
        security: SECURITY,
        params: Params,
        querystring: Verify,
        body: Type.Object(
          {
            label: Type.Optional(Label),
            environment: Type.Optional(Type.String({ enum: ['test', 'live'] })),
            credentials: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.Union([Type.String({ maxLength: 4096 }), Type.Null()]))),
            endpoint_url: Type.Optional(Type.Union([EndpointUrl, Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 200: PspAccount, ...SaveErrors, 404: { ...TokenApiError, description: 'No such PSP account in this account' }, ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const result = answer(await updatePspAccount(deps, accountId, request.params.id, request.body, { verify: request.query.verify !== false, actor: { userId, label: email } }));
      if (result instanceof ApiError) throw result;
      void reply.header('cache-control', 'no-store');
      return result;
    },
  );

  app.post(
    '/api/backoffice/psp_accounts/:id/verify',
    {
      schema: {
        tags: ['back office'],
        summary: 'Check a PSP account with the PSP again',
        description:
          `${AUTH_NOTE} Makes the harmless authenticated call to the PSP with the saved settings (the one a save makes) and, when the PSP accepts them, ` +
          'records when (`verified_at`). A refusal (422) or an unreachable PSP (502) changes nothing. Audited (`psp_account_verify`).',
        security: SECURITY,
        params: Params,
        response: { 200: PspAccount, ...SaveErrors, 404: { ...TokenApiError, description: 'No such PSP account in this account' }, ...BackofficeErrors },
      },
    },
    async (request, reply) => {
      const { accountId, userId, email } = await guard.userOf(request);
      const result = answer(await updatePspAccount(deps, accountId, request.params.id, {}, { verify: true, recheck: true, actor: { userId, label: email } }));
      if (result instanceof ApiError) throw result;
      void reply.header('cache-control', 'no-store');
      return result;
    },
  );

  app.delete(
    '/api/backoffice/psp_accounts/:id',
    {
      schema: {
        tags: ['back office'],
        summary: 'Delete a PSP account',
        description: `${AUTH_NOTE} Refused (409) while an offer uses it, or a payment was made on it (its captures and refunds need it).`,
        security: SECURITY,
        params: Params,
        response: {
          204: Type.Null({ description: 'Deleted' }),
          404: { ...TokenApiError, description: 'No such PSP account in this account' },
          409: { ...TokenApiError, description: '`psp_account_in_use`: an offer uses it or a payment was made on it' },
          ...BackofficeErrors,
        },
      },
    },
    async (request, reply) => {
      const accountId = await guard.accountOf(request);
      const outcome = await deletePspAccount(deps, accountId, request.params.id);
      if (outcome.kind === 'not_found') throw notFound('PSP account');
      if (outcome.kind === 'in_use') {
        throw new ApiError(
          409,
          'psp_account_in_use',
          `the PSP account is used by ${outcome.offers} offer(s) and ${outcome.payments} payment(s); bind the offers to another account first`,
        );
      }
      return reply.code(204).send(null);
    },
  );
}
