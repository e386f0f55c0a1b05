import { Type } from 'typebox';
import { namesReachedBy, type CatalogueEntry } from '../../../../psp/catalogue.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, SECURITY } from './schemas.ts';

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

/** GET /api/backoffice/psps: the connectors of this build, each with its credential fields and the catalogue's PSPs it reaches. */
export function registerPspConnectors(app: App, services: Services, guard: DashboardGuard, catalogue: readonly CatalogueEntry[]): void {
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
}
