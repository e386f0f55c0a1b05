import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let doc: { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>> };
let source: string;
beforeAll(async () => {
  app = await startTestApp();
  source = (await app.server.inject('/api/openapi.json')).body;
  doc = JSON.parse(source);
});
afterAll(() => app.close());

describe('OpenAPI document', () => {
  it('passes the Redocly linter (recommended rules) with no error', async () => {
    const config = await createConfig({
      extends: ['recommended'],
      // Our servers entry is the configured PUBLIC_URL, http://127.0.0.1 in tests; operation ids
      // and a license are not part of the contract, and the contract spells one path with a
      // trailing slash (`POST /api/trigger_capture/`).
      rules: { 'no-server-example.com': 'off', 'operation-operationId': 'off', 'info-license': 'off', 'no-path-trailing-slash': 'off', 'no-server-trailing-slash': 'error' },
    });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it('offers the token request as a form body and as JSON, both of which the route answers', () => {
    const body = doc.paths['/api/token']?.post?.requestBody as { content: Record<string, unknown> };
    expect(Object.keys(body.content)).toEqual(['application/x-www-form-urlencoded', 'application/json']);
  });

  it.each([
    ['/api/token', 'post', ['200', '400', '401', '429']],
    ['/api/merchants/v1/purchases', 'post', ['201', '401', '406', '409', '422', 'default']],
    ['/api/merchants/v1/purchases', 'get', ['200', '401', '406']],
    ['/api/merchants/v1/purchases/{id}', 'get', ['200', '401', '404']],
    ['/api/merchants/v1/clients/{id}', 'get', ['200', '401', '404']],
    ['/api/merchants/{merchant_uid}/purchase_link', 'post', ['200', '400', '401', '404', '409', '422']],
    ['/api/purchases/{purchase_uid}/abort', 'post', ['200', '401', '404', '409']],
  ])('describes %s %s with its responses %j', (path, method, statuses) => {
    const op = doc.paths[path]?.[method];
    expect(op, `${method} ${path}`).toBeDefined();
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(statuses));
  });
});
