import type { ConnectorDefinition } from '../definition.ts';

/**
 * The built-in sandbox PSP as a connector definition: listed by `GET /api/backoffice/psps` and
 * usable by PSP accounts (no credentials, test environment only). It is a special case of the
 * registry: its one instance needs the database, the clock and its notification key, so the
 * registry hands out that instance instead of calling {@link ConnectorDefinition.create}.
 */
export const sandboxDefinition: ConnectorDefinition = {
  name: 'sandbox',
  label: 'Chipin sandbox PSP (test cards, no real money)',
  authorizationValidity: {
    // Its own rule (src/psp/sandbox/connector.ts, SANDBOX_HOLD_DAYS); a void cancels the hold at once.
    default: 7,
    voidReleaseHours: 0,
    source: 'Chipin sandbox PSP: holds lapse 7 days after authorisation; a void releases at once (docs/psp-connectors.md#the-sandbox-psp)',
    offSessionHold: true,
  },
  environments: ['test'],
  credentialFields: [],
  baseUrl: () => 'builtin:sandbox',
  // Built in: it calls no one.
  publishedHosts: { test: [], live: [] },
  create: () => {
    throw new TypeError('the sandbox PSP is built in: the registry uses its own instance');
  },
};
