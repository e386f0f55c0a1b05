import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/** The built SDK: minified JavaScript and its Subresource Integrity hash. */
export interface SdkBundle {
  code: string;
  /** `sha384-…`, what a merchant's `<script integrity>` holds (docs/front-end.md prints it). */
  integrity: string;
}

let cached: SdkBundle | undefined;

/**
 * Builds src/sdk/chipin.ts once per process (lazily, ~20 ms) with esbuild. The output depends
 * only on the sources and the pinned esbuild version, so the SRI hash is the same on every
 * process and every start; test/sdk/sdk-assets.test.ts checks the docs print that hash.
 */
export function sdkBundle(): SdkBundle {
  if (cached) return cached;
  const result = buildSync({
    entryPoints: [fileURLToPath(new URL('./chipin.ts', import.meta.url))],
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
  cached = { code, integrity: `sha384-${createHash('sha384').update(code, 'utf8').digest('base64')}` };
  return cached;
}
