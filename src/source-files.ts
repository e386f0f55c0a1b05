/**
 * A file the service reads at run time beside its code (the migrations, the pages' scripts, the
 * SDK's sources), by its path from the repository's root. The root is found one level above this
 * module, which holds whether the code runs from `src/` (through tsx) or from the bundle in
 * `dist/` (docs/deployment.md#the-bundle): a path relative to each module would break in the bundle.
 */
export function repoFile(path: string): URL {
  return new URL(path, new URL('../', import.meta.url));
}
