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
 *     npx tsx scripts/psp-documents/derive-openapi.ts test/psp/fixtures/<psp>/psp-document.json <document>
 *
 * `<document>` is the PSP's OpenAPI document (JSON or YAML; a split one is bundled by Redocly,
 * external `$ref`s followed). A Swagger 2.0 document's operations are written in OpenAPI 3's words:
 * its `formData` parameters (or its `body` parameter) become the request body, under the media
 * types the operation (or the document) `consumes`, and its other parameters carry their `schema`.
 * To derive a first file, write its `derivedFrom` header by hand
 * (source, licence, operations as `"METHOD /path"` the way the document spells the path, and
 * `basePath` when the connector's URLs carry a prefix the document's paths do not) and run the
 * command.
 *
 * Where an npm package ships the document, the header's `npm` names it (package, version, the
 * file in it, the tarball's integrity): the script then takes the document from that pinned
 * tarball when no `<document>` is given, and `--check` (run by CI: `npm run
 * check:psp-documents`) derives each such file again and fails when the committed one differs,
 * so a derived file cannot drift from its document.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundle, createConfig } from '@redocly/openapi-core';

export interface DerivedFrom {
  title?: string;
  version?: string;
  source: string;
  licence: string;
  basePath?: string;
  /** The npm tarball that ships the document, pinned by its integrity. */
  npm?: { package: string; version: string; file: string; integrity: string };
  operations: string[];
  /**
   * Media types the PSP's servers take in place of a documented one, with the evidence: a request
   * sent as `type` is checked under the schema of the documented type `as` (test/psp/fixtures/kit/psp-document.ts).
   */
  alsoAccepted?: Record<string, { as: string; evidence: string }>;
  /**
   * Words of the derived file, by JSON pointer, that the PSP's own evidence contradicts: the check
   * leaves them out (test/psp/fixtures/kit/psp-document.ts); the file keeps them as the document says.
   */
  notChecked?: { pointer: string; evidence: string }[];
  regenerate?: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--check') {
    let differs = 0;
    for (const target of args.slice(1)) {
      const header = headerOf(target);
      if (!header.npm) {
        console.log(`${target}: derived from ${header.source}, not from a pinned npm package: not re-derived here`);
        continue;
      }
      const again = await deriveFile(target, header, documentFromNpm(header.npm));
      const same = again === readFileSync(target, 'utf8');
      console.log(`${target}: ${same ? 'equal to' : 'DIFFERS from'} what ${header.npm.package}@${header.npm.version} ${header.npm.file} derives`);
      if (!same) differs++;
    }
    process.exit(differs ? 1 : 0);
  }
  const [target, documentPath] = args;
  if (!target) {
    console.error('usage: npx tsx scripts/psp-documents/derive-openapi.ts <derived file> [<PSP document>] | --check <derived file>...');
    process.exit(2);
  }
  const header = headerOf(target);
  const document = documentPath ?? (header.npm ? documentFromNpm(header.npm) : undefined);
  if (!document) throw new Error(`${target}: give the document's path (${header.source})`);
  writeFileSync(target, await deriveFile(target, header, document));
  console.log(`${target}: ${header.operations.length} operations`);
}

function headerOf(target: string): DerivedFrom {
  return (JSON.parse(readFileSync(target, 'utf8')) as { derivedFrom: DerivedFrom }).derivedFrom;
}

async function deriveFile(target: string, header: DerivedFrom, documentPath: string): Promise<string> {
  const result = await bundle({ ref: resolve(documentPath), config: await createConfig({}) });
  return `${JSON.stringify(derive(result.bundle.parsed as JsonObject, header, target), null, 2)}\n`;
}

/**
 * The document's path, from the pinned npm tarball (fetched once into the temporary directory by
 * `npm pack`, its bytes checked against the pinned integrity, only the one file extracted). Fails
 * loudly when the registry cannot be reached or the tarball is not the pinned one.
 */
function documentFromNpm(npm: NonNullable<DerivedFrom['npm']>): string {
  const dir = join(tmpdir(), `chipin-psp-documents-${npm.package.replace(/\W/g, '_')}-${npm.version}`);
  mkdirSync(dir, { recursive: true });
  const tarball = join(dir, `${npm.package.replace(/^@/, '').replace('/', '-')}-${npm.version}.tgz`);
  if (!existsSync(tarball)) execFileSync('npm', ['pack', `${npm.package}@${npm.version}`, '--pack-destination', dir, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const [algorithm, expected] = npm.integrity.split('-', 2) as [string, string];
  const actual = createHash(algorithm).update(readFileSync(tarball)).digest('base64');
  if (actual !== expected) throw new Error(`${tarball}: integrity ${algorithm}-${actual}, pinned ${npm.integrity}`);
  const file = join(dir, 'package', npm.file);
  if (!existsSync(file)) execFileSync('tar', ['-xzf', tarball, '-C', dir, `package/${npm.file}`]);
  return file;
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
    const { parameters, requestBody } =
      doc.swagger === '2.0' ? fromSwagger2(params, (op.consumes ?? doc.consumes) as string[] | undefined) : { parameters: params, requestBody: op.requestBody };
    operations[name] = withoutProse({
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody !== undefined ? { requestBody } : {}),
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
      regenerate: `npx tsx scripts/psp-documents/derive-openapi.ts ${target}${header.npm ? '' : ` <${header.source}>`}`,
    } as JsonObject,
    openapi: doc.openapi ?? null,
    ...(doc.swagger !== undefined ? { swagger: doc.swagger } : {}),
    operations,
    components: Object.fromEntries(Object.entries(components).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))])),
  };
}

/**
 * A Swagger 2.0 operation's parameters in OpenAPI 3's words: `formData` parameters are the fields
 * of an object body (required when one of them is), a `body` parameter is the body, both under the
 * media types consumed (a form when none is named); the others keep their place with their schema
 * words (`type`, `format`, `enum`, `pattern`, …) moved into `schema`.
 */
function fromSwagger2(params: Json[], consumes: string[] | undefined): { parameters: Json[]; requestBody: Json | undefined } {
  const PARAMETER = new Set(['name', 'in', 'required', 'description']);
  const schemaOf = (p: JsonObject): JsonObject => Object.fromEntries(Object.entries(p).filter(([k]) => !PARAMETER.has(k)));
  const parameters: Json[] = [];
  const fields: JsonObject = {};
  const required: string[] = [];
  let body: JsonObject | undefined;
  for (const param of params as JsonObject[]) {
    if (typeof param.$ref === 'string') throw new Error(`unsupported Swagger 2.0 parameter $ref ${param.$ref}`);
    if (param.in === 'formData') {
      fields[param.name as string] = schemaOf(param);
      if (param.required === true) required.push(param.name as string);
    } else if (param.in === 'body') body = param;
    else parameters.push({ name: param.name!, in: param.in!, ...(param.required !== undefined ? { required: param.required } : {}), schema: schemaOf(param) });
  }
  if (!body && Object.keys(fields).length === 0) return { parameters, requestBody: undefined };
  const schema: Json = body ? body.schema! : { type: 'object', properties: fields, ...(required.length ? { required } : {}) };
  const types = consumes?.length ? consumes : ['application/x-www-form-urlencoded'];
  return {
    parameters,
    requestBody: { required: body ? body.required === true : required.length > 0, content: Object.fromEntries(types.map((t) => [t, { schema }])) },
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
