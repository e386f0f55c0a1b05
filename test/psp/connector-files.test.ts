import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The standard file set of a connector folder (docs/psp-connectors.md#adding-a-connector): the
 * required files, the optional ones with one meaning each, and the few PSP-specific extras, each
 * with the reason its PSP alone has. A folder under src/psp/ other than kit/ is a connector's.
 */
const REQUIRED = ['definition.ts', 'connector.ts', 'mapping.ts'];
const OPTIONAL = ['notifications.ts', 'disputes.ts', 'records.ts', 'state.ts', 'sdk.ts'];
const EXTRAS: Readonly<Record<string, readonly string[]>> = {
  hipay: ['client.ts'],
  payline: ['soap.ts', 'requests.ts'],
  midtrans: ['midtrans-client.d.ts'],
  sandbox: ['cards.ts', 'challenge-page.ts', 'sandbox-repository.ts'],
};

const root = new URL('../../src/psp/', import.meta.url);
const folders = readdirSync(root, { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== 'kit')
  .map((e) => e.name)
  .sort();

/** The "Adding a connector" section of the connectors' document, where the set is stated. */
function layoutSection(): string {
  const doc = readFileSync(new URL('../../docs/psp-connectors.md', import.meta.url), 'utf8');
  const start = doc.indexOf('## Adding a connector');
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end);
}

describe('connector folders hold the standard file set', () => {
  it('finds the connector folders', () => {
    expect(folders.length).toBeGreaterThan(10);
    expect(folders).toContain('adyen');
    expect(folders).toContain('sandbox');
  });

  it.each(folders)('%s/ has the required files and only documented ones', (name) => {
    const entries = readdirSync(new URL(`${name}/`, root), { withFileTypes: true });
    expect(entries.filter((e) => !e.isFile()).map((e) => e.name)).toEqual([]);
    const files = entries.map((e) => e.name);
    expect(REQUIRED.filter((f) => !files.includes(f))).toEqual([]);
    const allowed = new Set([...REQUIRED, ...OPTIONAL, ...(EXTRAS[name] ?? [])]);
    expect(files.filter((f) => !allowed.has(f))).toEqual([]);
  });

  it('names no extra of a folder that does not exist or no longer has it', () => {
    for (const [name, extras] of Object.entries(EXTRAS)) {
      expect(folders).toContain(name);
      const files = readdirSync(new URL(`${name}/`, root));
      expect(extras.filter((f) => !files.includes(f))).toEqual([]);
    }
  });

  it('docs/psp-connectors.md states the same set', () => {
    const section = layoutSection();
    for (const f of [...REQUIRED, ...OPTIONAL]) expect(section).toMatch(new RegExp(`^ {2}${f.replace('.', '\\.')} +(required|optional):`, 'm'));
    const listed = [...section.matchAll(/^ {2}(\S+\.ts) +(?:required|optional):/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...REQUIRED, ...OPTIONAL].sort());
    for (const [name, extras] of Object.entries(EXTRAS)) for (const f of extras) expect(section).toContain(name === 'sandbox' ? `\`${f}\`` : `\`${name}/${f}\``);
  });
});
