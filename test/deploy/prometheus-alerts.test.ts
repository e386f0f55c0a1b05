/**
 * deploy/prometheus/alerts.yml (docs/deployment.md#metrics-and-alerts): every rule has what an
 * operator needs (an expression, a duration, a severity, a summary, a runbook whose section exists
 * in docs/runbooks.md under the alert's name in kebab-case), and names only metrics the
 * deployment doc lists with their exporter. With `promtool` installed (Debian's `prometheus`
 * package; .ci/run installs it) the file is also checked by Prometheus itself and its unit
 * tests (deploy/prometheus/alerts.test.yml) are run; skipped, with a notice, otherwise.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface Rule {
  alert?: string;
  record?: string;
  expr?: unknown;
  for?: unknown;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}
const file = parse(read('deploy/prometheus/alerts.yml')) as { groups: { name: string; rules: Rule[] }[] };
const rules = file.groups.flatMap((g) => g.rules);

/** GitHub's heading anchor: lower case, punctuation but hyphens dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
const runbookAnchors = new Set([...read('docs/runbooks.md').matchAll(/^#{2,3} (.+)$/gm)].map((m) => slug(m[1]!)));

const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;
if (!promtool) console.info('promtool checks of deploy/prometheus/alerts.yml skipped: no promtool (apt-get install prometheus)');

describe('deploy/prometheus/alerts.yml', () => {
  it('holds the alerts of the reference topology, each once', () => {
    const names = rules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const wanted of [
      'PatroniNoLeader',
      'PatroniReplicationLag',
      'PatroniNoSyncStandby',
      'EtcdInsufficientMembers',
      'EtcdNoLeader',
      'PgbouncerClientsWaiting',
      'HaproxyBackendDown',
      'ChipinDeliveryBacklog',
      'ChipinJobLag',
    ])
      expect(names).toContain(wanted);
  });

  it.each(rules.map((r) => [r.alert ?? r.record ?? '?', r] as const))('%s has expr, for, severity, summary and a runbook section', (name, rule) => {
    expect(rule.alert, 'alerting rules only').toBe(name);
    expect(typeof rule.expr === 'string' && rule.expr.trim() !== '').toBe(true);
    expect(String(rule.for)).toMatch(/^\d+[smh]$/);
    expect(['critical', 'warning']).toContain(rule.labels?.severity);
    expect(typeof rule.annotations?.summary === 'string' && rule.annotations.summary !== '').toBe(true);
    expect(rule.annotations?.runbook_url).toBe(`docs/runbooks.md#${kebab(name)}`);
    expect(runbookAnchors.has(kebab(name)), `docs/runbooks.md has a heading whose anchor is ${kebab(name)}`).toBe(true);
  });

  it("names only metrics docs/deployment.md lists with their exporter (and Prometheus's own up)", () => {
    const doc = read('docs/deployment.md');
    const section = doc.slice(doc.indexOf('## Metrics and alerts'), doc.indexOf('\n## ', doc.indexOf('## Metrics and alerts') + 5));
    const listed = new Set([...section.matchAll(/`([a-z][a-z0-9_]*)(?:\{[^`]*\})?`/g)].map((m) => m[1]!));
    const used = new Set(rules.flatMap((r) => [...String(r.expr).matchAll(/\b((?:chipin|patroni|etcd|haproxy|pgbouncer)_[a-z0-9_]+)\b/g)].map((m) => m[1]!)));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((m) => !listed.has(m))).toEqual([]);
  });

  it('every runbook section is an alert of the file (none left over)', () => {
    const alerts = new Set(rules.map((r) => kebab(r.alert!)));
    const sections = [...read('docs/runbooks.md').matchAll(/^## (.+)$/gm)].map((m) => slug(m[1]!));
    expect(sections.filter((s) => !alerts.has(s))).toEqual([]);
  });

  it.runIf(promtool)('passes promtool check rules and the unit tests of deploy/prometheus/alerts.test.yml', () => {
    for (const args of [
      ['check', 'rules', 'deploy/prometheus/alerts.yml'],
      ['check', 'config', 'deploy/prometheus/prometheus.yml'],
      ['test', 'rules', 'deploy/prometheus/alerts.test.yml'],
    ]) {
      const r = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8' });
      expect(r.status, `promtool ${args.join(' ')}\n${r.stdout}${r.stderr}`).toBe(0);
    }
  });
});
