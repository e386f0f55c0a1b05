import { readFileSync } from 'node:fs';
import type { App } from '../../types.ts';
import { repoFile } from '../../../source-files.ts';

// Read once at start: the pages' scripts, served from our origin (CSP `script-src 'self'`); copy.js is the back office's.
const SCRIPTS = ['checkout.js', 'result.js', 'copy.js', 'confirming.js'].map((name) => ({ name, text: readFileSync(repoFile(`src/pages/assets/${name}`), 'utf8') }));

export function registerAssets(app: App): void {
  for (const { name, text } of SCRIPTS) {
    app.get(`/assets/${name}`, { schema: { hide: true } }, async (_request, reply) => {
      return reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(text);
    });
  }
}
