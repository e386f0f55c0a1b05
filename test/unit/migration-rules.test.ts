/**
 * The expand/contract rule of migrations (docs/deployment.md#rolling-upgrade), checked on the SQL
 * files themselves: during a rolling upgrade version N serves on N+1's schema, so a migration may
 * only add (nullable or defaulted columns, tables, indexes). Removing, renaming or retyping what N
 * reads or writes is the contract step, one release later, and needs an entry in CONTRACT below
 * naming that release. Pure: reads the files, no database.
 */
import { describe, expect, it } from 'vitest';
import { bundledMigrations } from '../../src/db/migrate.ts';

/**
 * Migrations up to this one were written before the rule was checked (020 renames a column, for
 * one); the check holds from the next one on.
 */
const BASELINE = 38;

/**
 * Contract steps allowed, by file name: the statement kinds the migration may hold, and the
 * release it belongs to (the one after the release whose code stopped using what it removes),
 * or why version N cannot see the step at all.
 * Example: `'045_drop_old_flag.sql': { kinds: ['DROP COLUMN'], release: '0.3.0: 0.2.0 stopped reading purchases.old_flag' }`.
 */
const CONTRACT: Record<string, { kinds: ContractKind[]; release: string }> = {
  '067_partition_append_only.sql': {
    kinds: ['RENAME', 'DROP TABLE'],
    release:
      'any: a table is renamed (and dropped when empty) only as the partitioned table of its name, columns and defaults replaces it in the same transaction; version N reads and writes that one by the same names (docs/partitioning.md)',
  },
};

type ContractKind =
  'DROP COLUMN' | 'DROP TABLE' | 'DROP VIEW, FUNCTION, TYPE OR SEQUENCE' | 'DROP DEFAULT' | 'RENAME' | 'ALTER COLUMN TYPE' | 'SET NOT NULL' | 'ADD COLUMN NOT NULL WITHOUT DEFAULT';

const RULES: { kind: ContractKind; pattern: RegExp }[] = [
  { kind: 'DROP COLUMN', pattern: /\bDROP\s+COLUMN\b/i },
  // `ALTER TABLE t DROP c` drops column c too (COLUMN is optional in PostgreSQL); the other
  // things an ALTER TABLE drops are named by their keyword: a constraint or NOT NULL (widening,
  // an expand step), a default (below), an identity or a generation expression.
  { kind: 'DROP COLUMN', pattern: /\bALTER\s+TABLE\b.*\bDROP\s+(?:IF\s+EXISTS\s+)?(?!(?:COLUMN|CONSTRAINT|NOT|DEFAULT|IDENTITY|EXPRESSION)\b)"?\w+/i },
  { kind: 'DROP TABLE', pattern: /\bDROP\s+TABLE\b/i },
  // What N's statements may name besides tables: a view it reads, a function it calls (a claim,
  // a trigger's function is N+1's own business but N calls some: the delivery claim), a type or
  // a sequence its inserts use.
  { kind: 'DROP VIEW, FUNCTION, TYPE OR SEQUENCE', pattern: /\bDROP\s+(?:MATERIALIZED\s+VIEW|VIEW|FUNCTION|PROCEDURE|TYPE|DOMAIN|SEQUENCE)\b/i },
  // N's inserts leave out the columns they do not set and count on their default.
  { kind: 'DROP DEFAULT', pattern: /\bDROP\s+DEFAULT\b/i },
  { kind: 'RENAME', pattern: /\bRENAME\b/i },
  { kind: 'ALTER COLUMN TYPE', pattern: /\bALTER\s+(?:COLUMN\s+)?"?\w+"?\s+(?:SET\s+DATA\s+)?TYPE\b/i },
  { kind: 'SET NOT NULL', pattern: /\bSET\s+NOT\s+NULL\b/i },
];

/** A statement's parts at parenthesis depth 0, split on commas: `numeric(10, 2)` stays whole. */
function topLevelParts(statement: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let part = '';
  for (const ch of statement) {
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(part.trim());
      part = '';
    } else part += ch;
  }
  parts.push(part.trim());
  return parts;
}

/** The SQL without comments, split into statements (no migration puts `;` inside a string or a function body it checks). */
function statements(sql: string): string[] {
  const bare = sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
  return bare
    .split(';')
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

/** Every contract statement of a migration, with its kind: what version N could break on. */
function contractSteps(sql: string): { kind: ContractKind; statement: string }[] {
  const found: { kind: ContractKind; statement: string }[] = [];
  for (const statement of statements(sql)) {
    const kinds = new Set<ContractKind>();
    for (const { kind, pattern } of RULES) if (pattern.test(statement)) kinds.add(kind);
    // N does not write a column it does not know: NOT NULL without a DEFAULT fails N's inserts.
    if (/^ALTER\s+TABLE\b/i.test(statement)) {
      for (const part of topLevelParts(statement)) {
        const column = /\bADD\s+(?!CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN|EXCLUDE)\b(?:COLUMN\s+)?.*/i.exec(part)?.[0];
        if (column && /\bNOT\s+NULL\b/i.test(column) && !/\bDEFAULT\b/i.test(column)) kinds.add('ADD COLUMN NOT NULL WITHOUT DEFAULT');
      }
    }
    for (const kind of kinds) found.push({ kind, statement });
  }
  return found;
}

const file = (m: { version: number; name: string }) => `${String(m.version).padStart(3, '0')}_${m.name}.sql`;

describe('migrations are expand/contract (docs/deployment.md#rolling-upgrade)', () => {
  it('from the baseline on, a migration only expands unless CONTRACT names its release', () => {
    const offences: string[] = [];
    for (const m of bundledMigrations().filter((m) => m.version > BASELINE)) {
      const allowed = CONTRACT[file(m)];
      for (const step of contractSteps(m.sql)) {
        if (!allowed?.kinds.includes(step.kind)) offences.push(`${file(m)}: ${step.kind} in "${step.statement.slice(0, 120)}"`);
      }
    }
    expect(
      offences,
      'version N still runs on this schema during a rolling upgrade: only add; the contract step goes one release later, listed in CONTRACT with its release',
    ).toEqual([]);
  });

  it('every CONTRACT entry names an existing migration after the baseline, its release, and a step it really holds', () => {
    const byFile = new Map(bundledMigrations().map((m) => [file(m), m]));
    for (const [name, entry] of Object.entries(CONTRACT)) {
      const m = byFile.get(name);
      expect(m, name).toBeDefined();
      expect(m!.version, name).toBeGreaterThan(BASELINE);
      expect(entry.release.trim(), name).not.toBe('');
      const kinds = new Set(contractSteps(m!.sql).map((s) => s.kind));
      for (const k of entry.kinds) expect(kinds.has(k), `${name} holds no ${k}: remove it from CONTRACT`).toBe(true);
    }
  });

  it('the baseline is a shipped migration, so the check starts where the history stands', () => {
    expect(bundledMigrations().map((m) => m.version)).toContain(BASELINE);
  });

  it('flags each contract statement and passes additive ones', () => {
    const kinds = (sql: string) => contractSteps(sql).map((s) => s.kind);
    expect(kinds('ALTER TABLE purchases DROP COLUMN note;')).toEqual(['DROP COLUMN']);
    expect(kinds('DROP TABLE IF EXISTS old_things;')).toEqual(['DROP TABLE']);
    expect(kinds('ALTER TABLE idempotency_keys RENAME COLUMN endpoint TO scope;')).toEqual(['RENAME']);
    expect(kinds('ALTER TABLE a RENAME TO b;')).toEqual(['RENAME']);
    expect(kinds('ALTER TABLE a ALTER COLUMN amount TYPE numeric;')).toEqual(['ALTER COLUMN TYPE']);
    expect(kinds('ALTER TABLE a ALTER COLUMN amount SET DATA TYPE bigint;')).toEqual(['ALTER COLUMN TYPE']);
    expect(kinds('ALTER TABLE a ALTER COLUMN note SET NOT NULL;')).toEqual(['SET NOT NULL']);
    expect(kinds('ALTER TABLE a ADD COLUMN flag boolean NOT NULL;')).toEqual(['ADD COLUMN NOT NULL WITHOUT DEFAULT']);
    // COLUMN is optional after DROP and ADD; a type's own commas do not end the column.
    expect(kinds('ALTER TABLE purchases DROP IF EXISTS note;')).toEqual(['DROP COLUMN']);
    expect(kinds('ALTER TABLE purchases DROP note, ADD COLUMN b text;')).toEqual(['DROP COLUMN']);
    expect(kinds('ALTER TABLE a ADD rate numeric(10, 2) NOT NULL;')).toEqual(['ADD COLUMN NOT NULL WITHOUT DEFAULT']);
    expect(kinds('ALTER TABLE a ADD COLUMN b text, ADD COLUMN rate numeric(10, 2) NOT NULL;')).toEqual(['ADD COLUMN NOT NULL WITHOUT DEFAULT']);
    expect(kinds('ALTER TABLE a ALTER COLUMN state DROP DEFAULT;')).toEqual(['DROP DEFAULT']);
    expect(kinds('DROP VIEW purchase_totals;')).toEqual(['DROP VIEW, FUNCTION, TYPE OR SEQUENCE']);
    expect(kinds('DROP FUNCTION IF EXISTS claim_delivery(integer);')).toEqual(['DROP VIEW, FUNCTION, TYPE OR SEQUENCE']);
    // Expand steps, and a contract word in a comment only:
    expect(kinds('ALTER TABLE a ADD COLUMN flag boolean NOT NULL DEFAULT false, ADD COLUMN note text;')).toEqual([]);
    expect(kinds('CREATE TABLE t (id text PRIMARY KEY, v int NOT NULL); CREATE INDEX t_v_idx ON t (v);')).toEqual([]);
    expect(kinds('ALTER TABLE a ADD CONSTRAINT a_check CHECK (v IS NOT NULL);')).toEqual([]);
    // Widening: a constraint dropped (to add a wider one), NOT NULL dropped; an index is N's planner's, not its statements'.
    expect(kinds('ALTER TABLE a DROP CONSTRAINT a_kind_check, ADD CONSTRAINT a_kind_check CHECK (kind IN (1, 2));')).toEqual([]);
    expect(kinds('ALTER TABLE a ALTER COLUMN b DROP NOT NULL;')).toEqual([]);
    expect(kinds('DROP INDEX IF EXISTS a_b_idx;')).toEqual([]);
    expect(kinds('CREATE TABLE t (id text PRIMARY KEY, rate numeric(10, 2) NOT NULL);')).toEqual([]);
    expect(kinds('-- we used to DROP TABLE here\nALTER TABLE a ADD COLUMN b text;')).toEqual([]);
  });

  it('the checker finds the rename of migration 020, written before the rule', () => {
    const m020 = bundledMigrations().find((m) => m.version === 20)!;
    expect(contractSteps(m020.sql).map((s) => s.kind)).toContain('RENAME');
  });
});
