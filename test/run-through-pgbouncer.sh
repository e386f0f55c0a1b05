#!/usr/bin/env bash
# npm run test:pgbouncer: the PostgreSQL half of the suite with every test database reached
# through PgBouncer in transaction mode, started from deploy/pgbouncer/pgbouncer.ini (its port,
# paths and authentication replaced). DATABASE_URL stays the direct server: databases are
# created, cloned and dropped there, and LISTEN connects there (DATABASE_LISTEN_URL). Needs
# Debian's pgbouncer and pg_isready (apt-get install pgbouncer postgresql-client).
# docs/testing.md#through-pgbouncer.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${DATABASE_URL:?set DATABASE_URL to the PostgreSQL server (postgres://postgres@127.0.0.1:5432/postgres)}"
bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
[ -x "$bin" ] || { echo "pgbouncer is not installed (apt-get install pgbouncer)" >&2; exit 2; }

host=$(node -e 'const u = new URL(process.argv[1]); console.log(u.hostname)' "$DATABASE_URL")
port=$(node -e 'const u = new URL(process.argv[1]); console.log(u.port || 5432)' "$DATABASE_URL")
user=$(node -e 'const u = new URL(process.argv[1]); console.log(decodeURIComponent(u.username) || "postgres")' "$DATABASE_URL")
listen=${PGBOUNCER_TEST_PORT:-6439}
dir=$(mktemp -d /tmp/chipin-pgbouncer-XXXXXX)
# Set before PgBouncer starts, so that a failed start still stops it and removes the folder.
trap 'if [ -s "$dir/pgbouncer.pid" ]; then kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true; fi; rm -rf "$dir"' EXIT
chmod 777 "$dir"
printf '"%s" ""\n' "$user" > "$dir/userlist.txt"
sed -e "s|^\* = host=.*|* = host=$host port=$port|" \
    -e "s|^listen_port = .*|listen_port = $listen|" \
    -e "s|^unix_socket_dir = .*|unix_socket_dir =|" \
    -e "s|^auth_type = .*|auth_type = trust|" \
    -e "s|^auth_file = .*|auth_file = $dir/userlist.txt|" \
    -e "s|^logfile = .*|logfile = $dir/pgbouncer.log|" \
    -e "s|^pidfile = .*|pidfile = $dir/pgbouncer.pid|" \
    deploy/pgbouncer/pgbouncer.ini > "$dir/pgbouncer.ini"
chmod 644 "$dir"/*
as=(); [ "$(id -u)" = 0 ] && as=(-u postgres)
"$bin" "${as[@]}" -d "$dir/pgbouncer.ini"
# Until it accepts connections, at most 10 s. With -d it exits 0 before binding its port, then dies
# if the port is taken: its own process must be the one answering.
ready() {
  [ -s "$dir/pgbouncer.pid" ] && kill -0 "$(cat "$dir/pgbouncer.pid")" 2>/dev/null &&
    pg_isready -q -h 127.0.0.1 -p "$listen" -U "$user" -d postgres
}
for _ in $(seq 1 100); do ready && break; sleep 0.1; done
ready || {
  echo "PgBouncer does not accept connections on 127.0.0.1:$listen after 10 s:" >&2
  tail -n 20 "$dir/pgbouncer.log" >&2 || true
  exit 2
}

export CHIPIN_TEST_POOLER_URL="postgres://$user@127.0.0.1:$listen/postgres"
echo "== the postgres project through PgBouncer on 127.0.0.1:$listen (transaction mode)"
npx vitest run --project postgres "$@"
