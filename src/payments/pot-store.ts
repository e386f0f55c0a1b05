/**
 * Kept only because src/pages/checkout-page.ts and pledge-page.ts (owned by the pages' refactor)
 * import the `Pledge` type from here; delete once they import it from pledge-repository.ts.
 */
export type { Pledge } from './pledge-repository.ts';
