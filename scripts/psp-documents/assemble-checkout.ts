/**
 * Assembles Checkout.com's split OpenAPI source (`nas_spec/` of checkout/checkout-api-reference)
 * into the one document scripts/psp-documents/derive-openapi.ts reads, the way the repository's own build
 * does it (its scripts/build.js runs src/OpenApiGenerator/Program.cs, a .NET program):
 * `swagger.yaml`, then under `paths` each `paths/**.yaml` named by its file name with `@` for `/`
 * (`payments@{id}@captures.yaml` is `/payments/{id}/captures`; a name starting with `_` is `/`),
 * then under `components.<kind>` each `components/<kind>/**.yaml` named by its file name. A
 * separate script because that layout is Checkout.com's alone and its build needs .NET
 * (docs/psp/checkout.md#the-document-the-fake-checks). Code samples are left out: they check nothing.
 *
 *     npx tsx scripts/psp-documents/assemble-checkout.ts <nas_spec directory> <document.json>
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const KINDS = ['schemas', 'headers', 'parameters', 'responses', 'securitySchemes'];

/** The `.yaml` files under `dir`, in the order the build reads them (sorted full paths). */
function yamlFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(dir, f))
    .sort();
}

/** A file's name up to its first dot, as the build names a path or a component. */
const nameOf = (file: string): string => file.slice(file.lastIndexOf('/') + 1).split('.')[0]!;

function named(files: string[], key: (name: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const file of files) {
    const k = key(nameOf(file));
    if (Object.hasOwn(out, k)) throw new Error(`${file}: ${k} is named twice`);
    out[k] = parse(readFileSync(file, 'utf8'));
  }
  return out;
}

export function assemble(specDir: string): Record<string, unknown> {
  const doc = parse(readFileSync(join(specDir, 'swagger.yaml'), 'utf8')) as Record<string, unknown>;
  doc.paths = named(yamlFiles(join(specDir, 'paths')), (n) => (n.startsWith('_') ? '/' : `/${n.replace(/@/g, '/')}`));
  doc.components = Object.fromEntries(
    KINDS.flatMap((kind) => {
      const dir = join(specDir, 'components', kind);
      return readdirSync(join(specDir, 'components')).includes(kind) ? [[kind, named(yamlFiles(dir), (n) => n)]] : [];
    }),
  );
  return doc;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [specDir, out] = process.argv.slice(2);
  if (!specDir || !out) {
    console.error('usage: npx tsx scripts/psp-documents/assemble-checkout.ts <nas_spec directory> <document.json>');
    process.exit(2);
  }
  const doc = assemble(specDir);
  writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`${out}: ${Object.keys(doc.paths as object).length} paths`);
}
