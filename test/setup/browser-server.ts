import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** WebSocket endpoint of the run's one Chromium ('' where none is installed). */
    browserEndpoint: string;
  }
}

/**
 * Global setup of the `browser` project: one headless Chromium for the whole run, which every
 * browser test file connects to (launching it costs about a second per file otherwise). Each
 * file's pages live in its own connection and go with it.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!existsSync(CHROMIUM)) {
    project.provide('browserEndpoint', '');
    return undefined;
  }
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  project.provide('browserEndpoint', server.wsEndpoint());
  return () => server.close();
}
