-- Monthly partitions for the append-only tables on PostgreSQL with pg_partman installed in the
-- database (docs/partitioning.md). Everywhere else (PGlite, PostgreSQL without the extension)
-- this migration only defines the two functions and changes no table; `chipin partition` converts
-- the same tables later, once an operator has installed the extension.
--
-- A table is converted in place, in this transaction: the old table becomes the partition of
-- everything written before the first day of next month (its rows are not copied, its
-- secondary indexes and foreign keys are taken over as they are), a partitioned table of the
-- same name takes its columns, checks, defaults, indexes, foreign keys and triggers, and
-- pg_partman creates the months after it and a default partition.

CREATE OR REPLACE FUNCTION chipin_partition_monthly(p_table text, p_column text) RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
  v_schema text := current_schema();
  v_partman text;
  v_table regclass;
  v_legacy text := p_table || '_legacy';
  v_min timestamptz;
  v_max timestamptz;
  v_start timestamptz;
  v_key text[];
  v_indexes text[][] := '{}';
  v_fks text[][] := '{}';
  v_triggers text[] := '{}';
  v_sequences text[][] := '{}';
  v_next bigint;
  v_trigger text;
  r record;
  i int;
BEGIN
  SELECT n.nspname INTO v_partman FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_partman';
  IF v_partman IS NULL THEN
    RETURN false;
  END IF;
  v_table := format('%I.%I', v_schema, p_table)::regclass;
  IF (SELECT relkind FROM pg_class WHERE oid = v_table) = 'p' THEN
    RETURN false;
  END IF;
  -- A partitioned table's unique indexes must hold the partition column: a unique index other
  -- than the primary key would stop guaranteeing what it guarantees now.
  IF EXISTS (SELECT 1 FROM pg_index WHERE indrelid = v_table AND indisunique AND NOT indisprimary) THEN
    RAISE EXCEPTION 'chipin_partition_monthly: % has a unique index besides its primary key', p_table;
  END IF;
  EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', v_table);
  -- Another conversion may have committed while this one waited for the lock: the name then
  -- belongs to the partitioned table, and the table locked here is its partition.
  IF to_regclass(format('%I.%I', v_schema, p_table)) IS DISTINCT FROM v_table THEN
    RETURN false;
  END IF;
  EXECUTE format('SELECT min(%I), max(%I) FROM %s', p_column, p_column, v_table) INTO v_min, v_max;

  -- What the new table takes over, read before anything is renamed (the definitions name the table).
  SELECT array_agg(a.attname::text ORDER BY k.ord) INTO v_key
    FROM pg_constraint c, unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
    JOIN pg_attribute a ON a.attnum = k.attnum
   WHERE c.conrelid = v_table AND c.contype = 'p' AND a.attrelid = v_table;
  IF NOT p_column = ANY (v_key) THEN
    v_key := v_key || p_column;
  END IF;
  FOR r IN SELECT c.relname::text AS name, pg_get_indexdef(i.indexrelid) AS def
             FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = v_table AND NOT i.indisprimary LOOP
    v_indexes := v_indexes || ARRAY[[r.name, r.def]];
  END LOOP;
  FOR r IN SELECT conname::text AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = v_table AND contype = 'f' LOOP
    v_fks := v_fks || ARRAY[[r.name, r.def]];
  END LOOP;
  FOR r IN SELECT tgname::text AS name, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = v_table AND NOT tgisinternal LOOP
    v_triggers := v_triggers || r.def;
    EXECUTE format('DROP TRIGGER %I ON %s', r.name, v_table);
  END LOOP;
  -- Identity columns become a sequence default (PostgreSQL 15 has no identity on a partitioned
  -- table), continuing where the identity stopped.
  FOR r IN SELECT a.attname::text AS col, pg_get_serial_sequence(v_table::text, a.attname) AS seq
             FROM pg_attribute a WHERE a.attrelid = v_table AND a.attidentity <> '' LOOP
    EXECUTE format('SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM %s', r.seq) INTO v_next;
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY', v_table, r.col);
    v_sequences := v_sequences || ARRAY[[r.col, r.seq, v_next::text]];
  END LOOP;
  -- Foreign keys into the table go: they would need the partition column (docs/partitioning.md).
  FOR r IN SELECT conname::text AS name, conrelid::regclass AS child FROM pg_constraint WHERE confrelid = v_table AND contype = 'f' LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.child, r.name);
  END LOOP;

  -- The old table steps aside: its name, its indexes' names and its primary key.
  EXECUTE format('ALTER TABLE %s RENAME TO %I', v_table, v_legacy);
  FOR r IN SELECT conname::text AS name FROM pg_constraint WHERE conrelid = v_table AND contype = 'p' LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', v_table, r.name);
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(v_indexes, 1), 0) LOOP
    EXECUTE format('ALTER INDEX %I.%I RENAME TO %I', v_schema, v_indexes[i][1], left(v_indexes[i][1], 56) || '_legacy');
  END LOOP;

  EXECUTE format('CREATE TABLE %I.%I (LIKE %I.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMMENTS) PARTITION BY RANGE (%I)',
    v_schema, p_table, v_schema, v_legacy, p_column);
  FOR i IN 1 .. coalesce(array_length(v_sequences, 1), 0) LOOP
    EXECUTE format('CREATE SEQUENCE %s START %s OWNED BY %I.%I.%I', v_sequences[i][2], v_sequences[i][3], v_schema, p_table, v_sequences[i][1]);
    EXECUTE format('ALTER TABLE %I.%I ALTER COLUMN %I SET DEFAULT nextval(%L::regclass)', v_schema, p_table, v_sequences[i][1], v_sequences[i][2]);
  END LOOP;
  EXECUTE format('ALTER TABLE %I.%I ADD CONSTRAINT %I PRIMARY KEY (%s)', v_schema, p_table, p_table || '_pkey',
    (SELECT string_agg(quote_ident(k), ', ') FROM unnest(v_key) k));
  FOR i IN 1 .. coalesce(array_length(v_indexes, 1), 0) LOOP
    EXECUTE v_indexes[i][2];
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(v_fks, 1), 0) LOOP
    EXECUTE format('ALTER TABLE %I.%I ADD CONSTRAINT %I %s', v_schema, p_table, v_fks[i][1], v_fks[i][2]);
  END LOOP;
  FOREACH v_trigger IN ARRAY v_triggers LOOP
    EXECUTE v_trigger;
  END LOOP;

  IF v_min IS NULL THEN
    EXECUTE format('DROP TABLE %I.%I', v_schema, v_legacy);
    v_start := date_trunc('month', now());
  ELSE
    -- Attaching matches the old indexes and foreign keys with the new table's and keeps them;
    -- only the new primary key is built, and the rows are checked against the range once.
    v_start := date_trunc('month', greatest(v_max, now())) + interval '1 month';
    EXECUTE format('ALTER TABLE %I.%I ATTACH PARTITION %I.%I FOR VALUES FROM (%L) TO (%L)',
      v_schema, p_table, v_schema, v_legacy, date_trunc('month', v_min), v_start);
  END IF;
  EXECUTE format('SELECT %I.create_parent(p_parent_table := %L, p_control := %L, p_type := %L, p_interval := %L, p_premake := 4, p_start_partition := %L)',
    v_partman, v_schema || '.' || p_table, p_column, 'native', 'monthly', v_start::text);
  -- The months ahead are made whether or not rows came in lately: a quiet table's rows would
  -- otherwise fall into the default partition, where they stop the month's creation later.
  EXECUTE format('UPDATE %I.part_config SET infinite_time_partitions = true WHERE parent_table = %L', v_partman, v_schema || '.' || p_table);
  RETURN true;
END
$fn$;

-- The tables written once and never updated after, with their time column (docs/partitioning.md
-- says why the others are not): converted here, and read by `chipin partition` (src/db/partitions.ts).
CREATE OR REPLACE FUNCTION chipin_append_only_tables() RETURNS TABLE (name text, col text)
LANGUAGE sql IMMUTABLE AS $fn$
  VALUES ('purchase_events', 'created_at'), ('delivery_attempts', 'started_at'), ('risk_decisions', 'created_at'), ('audit_log', 'created_at')
$fn$;

SELECT chipin_partition_monthly(name, col) FROM chipin_append_only_tables();
