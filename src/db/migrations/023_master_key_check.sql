-- The master key's check value (docs/security.md, "The master key"): one row, written by the
-- first process that starts with a key on this database, compared by every later start and CLI
-- command, so that a process with another key refuses to run instead of failing to open the
-- secrets sealed under the first one. `kcv` is an HMAC of a fixed label under a key derived
-- from the master key (never the key, nor a plain hash of it).
CREATE TABLE master_key_check (
  id         boolean PRIMARY KEY DEFAULT true CHECK (id),
  kcv        bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
