import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { repoFile } from '../source-files.ts';

/** A built script: minified JavaScript and its Subresource Integrity hash. */
export interface SdkBundle {
  code: string;
  /** `sha384-…`, what a merchant's `<script integrity>` holds (docs/front-end.md prints chipin.js's). */
  integrity: string;
}

const cached = new Map<string, SdkBundle>();

/**
 * Builds an entry point of src/sdk once per process (lazily, ~20 ms) with esbuild. The output
 * depends only on the sources and the pinned esbuild version, so the SRI hash is the same on
 * every process and every start; test/sdk/sdk-assets.test.ts checks the docs print that hash.
 */
function build(entry: string): SdkBundle {
  const done = cached.get(entry);
  if (done) return done;
  const result = buildSync({
    entryPoints: [fileURLToPath(repoFile(`src/sdk/${entry}`))],
    bundle: true,
    minify: true,
    format: 'iife',
    // Browsers of the last years; no transpiled helpers needed for what the SDK uses.
    target: ['es2019'],
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    // No absolute path of the build machine may end up in the output (the hash must not depend on it).
    sourcemap: false,
  });
  const code = result.outputFiles[0]!.text;
  const bundle = { code, integrity: `sha384-${createHash('sha384').update(code, 'utf8').digest('base64')}` };
  cached.set(entry, bundle);
  return bundle;
}

/** chipin.js, from ./chipin.ts. */
export function sdkBundle(): SdkBundle {
  return build('chipin.ts');
}

/** The Pledg script (the original provider's plugin.min.js, for its shop plugins), from ./pledg.ts. */
export function pledgBundle(): SdkBundle {
  return build('pledg.ts');
}
