/**
 * `npm run test:full` (docs/testing.md#the-full-run) sets CHIPIN_TEST_FULL=1: the sweeps then walk
 * their whole matrices (every route under every spelling, every hostile id in every parameter of
 * every route, more fuzz cases and race seeds). `npm test`, and so CI, walks one representative
 * of each family: what the family's shared code decides (a guard, a parser) is checked on every
 * run, and what only one route could get wrong is checked by the full run, which a developer runs
 * before touching routing, guards or input parsing.
 */
export const FULL_RUN = process.env.CHIPIN_TEST_FULL === '1';

/** Every item in a full run; otherwise the first item of each family, in the order given. */
export function onePerFamily<T>(items: readonly T[], familyOf: (item: T) => string): T[] {
  if (FULL_RUN) return [...items];
  const seen = new Set<string>();
  return items.filter((item) => {
    const family = familyOf(item);
    if (seen.has(family)) return false;
    seen.add(family);
    return true;
  });
}
