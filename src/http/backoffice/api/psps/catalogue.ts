import { Type } from 'typebox';
import type { CatalogueEntry as PspCatalogueEntry } from '../../../../psp/catalogue.ts';
import type { DashboardGuard } from '../../../dashboard-guard.ts';
import type { App } from '../../../types.ts';
import { BackofficeErrors } from '../webhook.ts';
import { AUTH_NOTE, SECURITY } from './schemas.ts';

const CatalogueEntry = Type.Object(
  {
    name: Type.String({ examples: ['Mercanet (BNP Paribas)'] }),
    route: Type.String({ enum: ['direct', 'via_hyperswitch', 'not_yet'] }),
    connector: Type.Union([Type.String(), Type.Null()], { description: 'The connector a PSP account names (`psp`): its own for `direct`, `hyperswitch` for `via_hyperswitch`' }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is not reached yet' }),
  },
  { title: 'PspCatalogueEntry' },
);

/** GET /api/backoffice/psp_catalogue: every PSP of the catalogue and how this build reaches it. */
export function registerPspCatalogue(app: App, guard: DashboardGuard, catalogue: readonly PspCatalogueEntry[]): void {
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
}
