/**
 * Derives the part of a PSP's published OpenAPI document that Chipin's connector uses: the
 * operations it calls, with only the components they reach. The fake of that PSP checks every
 * request it receives against the result (test/psp/fixtures/kit/psp-document.ts), so a connector
 * and a fake written by the same hands cannot share a misreading of the document
 * (docs/testing.md#psp-documents).
 *
 * The repository does not carry the PSP's document; the derived file names it (title, version,
 * source, licence) in its `derivedFrom` header, which also lists the operations and the command
 * that regenerates it:
 *
 *     npx tsx scripts/derive-psp-document.ts test/psp/fixtures/<psp>/psp-document.json <document>
 *
 * `<document>` is the PSP's OpenAPI document (JSON or YAML; a split one is bundled by Redocly,
 * external `$ref`s followed). To derive a first file, write its `derivedFrom` header by hand
 * (source, licence, operations as `"METHOD /path"` the way the document spells the path, and
 * `basePath` when the connector's URLs carry a prefix the document's paths do not) and run the
 * command.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { bundle, createConfig } from '@redocly/openapi-core';

export interface DerivedFrom {
  title?: string;
  version?: string;
  source: string;
  licence: string;
  basePath?: string;
  operations: string[];
  regenerate?: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

async function main(): Promise<void> {
  const [target, documentPath] = process.argv.slice(2);
  if (!target || !documentPath) {
    console.error('usage: npx tsx scripts/derive-psp-document.ts <derived file> <PSP document>');
    process.exit(2);
  }
  const header = (JSON.parse(readFileSync(target, 'utf8')) as { derivedFrom: DerivedFrom }).derivedFrom;
  const result = await bundle({ ref: resolve(documentPath), config: await createConfig({}) });
  const doc = result.bundle.parsed as JsonObject;
  writeFileSync(target, `${JSON.stringify(derive(doc, header, target), null, 2)}\n`);
  console.log(`${target}: ${header.operations.length} operations`);
}

/** The operations `header` names, with every component they reach, from a bundled document. */
export function derive(doc: JsonObject, header: DerivedFrom, target: string): JsonObject {
  const info = (doc.info ?? {}) as JsonObject;
  const paths = (doc.paths ?? {}) as JsonObject;
  const operations: JsonObject = {};
  for (const name of header.operations) {
    const [method, path] = name.split(' ') as [string, string];
    if (!METHODS.includes(method.toLowerCase())) throw new Error(`${name}: not "METHOD /path"`);
    const item = paths[path] as JsonObject | undefined;
    const op = item?.[method.toLowerCase()] as JsonObject | undefined;
    if (!item || !op) throw new Error(`${name}: no such operation in the document`);
    // Parameters may sit on the path item as well as on the operation; the operation's win.
    const params = [...((item.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])];
    operations[name] = withoutProse({
      ...(params.length ? { parameters: params } : {}),
      ...(op.requestBody !== undefined ? { requestBody: op.requestBody } : {}),
    }) as JsonObject;
  }
  const components: Record<string, JsonObject> = {};
  const seen = new Set<string>();
  const follow = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(follow);
    if (typeof node !== 'object' || node === null) return;
    const ref = node.$ref;
    if (typeof ref === 'string' && !seen.has(ref)) {
      seen.add(ref);
      const m = /^#\/components\/([^/]+)\/(.+)$/.exec(ref);
      if (!m) throw new Error(`unsupported $ref ${ref}`);
      const [, kind, key] = m as unknown as [string, string, string];
      const target = ((doc.components as JsonObject)[kind] as JsonObject)[key];
      if (target === undefined) throw new Error(`dangling $ref ${ref}`);
      const kept = withoutProse(target);
      (components[kind] ??= {})[key] = kept;
      follow(kept);
    }
    for (const [k, v] of Object.entries(node)) if (k !== '$ref') follow(v);
  };
  follow(operations);
  return {
    derivedFrom: {
      ...header,
      title: typeof info.title === 'string' ? info.title : header.title,
      version: typeof info.version === 'string' ? info.version : header.version,
      regenerate: `npx tsx scripts/derive-psp-document.ts ${target} <${header.source}>`,
    } as JsonObject,
    openapi: doc.openapi ?? null,
    operations,
    components: Object.fromEntries(Object.entries(components).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))])),
  };
}

/** Words of a schema that check nothing: the document's prose, examples and vendor extensions stay in the document. */
const PROSE = new Set(['description', 'summary', 'example', 'examples', 'externalDocs', 'title']);

/** `node` without its prose; the keys of a `properties` map are field names, kept whatever they are. */
function withoutProse(node: Json, isMap = false): Json {
  if (Array.isArray(node)) return node.map((n) => withoutProse(n));
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => isMap || !(PROSE.has(k) || k.startsWith('x-')))
      .map(([k, v]) => [k, withoutProse(v, !isMap && (k === 'properties' || k === 'patternProperties'))]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
