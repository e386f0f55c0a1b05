#!/usr/bin/env bash
# npm run drill:backup: the backup and restore drill (docs/deployment.md, "Backup and restore").
# On a throwaway PostgreSQL cluster of its own (ports 5441 and 5442, HTTP 5449; DRILL_PG_PORT and
# DRILL_HTTP_PORT move them), with the operator's files of this folder: initdb with WAL archiving
# (archive-wal.sh), Chipin migrated and a merchant created by the CLI, a base backup
# (base-backup.sh), purchases created and paid through a running `chipin serve` on the sandbox
# PSP, the time T and the figures at T noted, more purchases paid after T, a point-in-time restore
# to T (restore.sh) started on a new data directory, and the check that exactly the purchases and
# ledger rows committed at T are there: none missing, none after. Prints PASS or FAIL with figures
# and durations; removes everything it made. Every wait is bounded. Needs PostgreSQL 15's server
# binaries (PG_BIN, default /usr/lib/postgresql/15/bin), psql, curl, node; run as root it runs
# PostgreSQL as the postgres user, with copies of this folder's scripts in its own directory (the
# checkout may be where postgres cannot read, such as /root).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
pg=${PG_BIN:-/usr/lib/postgresql/15/bin}
src_port=${DRILL_PG_PORT:-5441}
dst_port=$((src_port + 1))
http_port=${DRILL_HTTP_PORT:-5449}
before_n=${DRILL_BEFORE:-6} # purchases paid before T
after_n=${DRILL_AFTER:-4}   # and after T
for b in initdb pg_ctl pg_basebackup pg_verifybackup; do
  [ -x "$pg/$b" ] || { echo "drill: $pg/$b not found (apt-get install postgresql-15, or set PG_BIN)" >&2; exit 2; }
done

as=()
dir=$(mktemp -d /tmp/chipin-backup-drill-XXXXXX)
chmod 755 "$dir"
if [ "$(id -u)" = 0 ]; then
  as=(runuser -u postgres --)
  chown postgres "$dir"
fi
# The scripts PostgreSQL and the postgres user run, from the drill's directory (readable by all).
mkdir "$dir/bin"
cp "$root"/deploy/backup/{archive-wal,base-backup,restore}.sh "$dir/bin/"
chmod 755 "$dir/bin" "$dir"/bin/*.sh
serve_pid=
cleanup() {
  if [ -n "$serve_pid" ]; then kill -KILL "$serve_pid" 2>/dev/null || true; fi
  for d in primary restored; do
    if [ -f "$dir/$d/postmaster.pid" ]; then "${as[@]}" "$pg/pg_ctl" -D "$dir/$d" -m immediate -t 20 stop >/dev/null 2>&1 || true; fi
  done
  rm -rf "$dir"
}
trap cleanup EXIT

ms() { date +%s%3N; }
start_ms=$(ms)
durations=()
step_ms=$start_ms
step() { # closes the step that ran since the last call, under this name
  local now
  now=$(ms)
  durations+=("$(awk -v name="$1" -v ms=$((now - step_ms)) 'BEGIN { printf "%-36s %6.1f s", name, ms / 1000 }')")
  step_ms=$now
}
fail() {
  echo "FAIL: $*"
  for d in primary restored; do [ -f "$dir/$d.log" ] && { echo "--- $d.log (end)"; tail -n 15 "$dir/$d.log"; }; done
  exit 1
}
psql_at() { # port, SQL: one unaligned line per row
  "${as[@]}" psql -X -q -At -h 127.0.0.1 -p "$1" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "$2"
}
json() { # .field of the JSON on stdin
  node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(v[process.argv[1].slice(1)] ?? "")' "$1"
}

# --- 1. A primary with WAL archiving on: the settings of postgresql.backup.conf, on loopback.
"${as[@]}" mkdir "$dir/archive"
"${as[@]}" "$pg/initdb" -D "$dir/primary" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || fail "initdb: $(tail -n 5 "$dir/initdb.log")"
"${as[@]}" tee -a "$dir/primary/postgresql.conf" >/dev/null <<CONF
port = $src_port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
wal_level = replica
archive_mode = on
archive_command = '$dir/bin/archive-wal.sh %p %f $dir/archive'
archive_timeout = 60
CONF
"${as[@]}" "$pg/pg_ctl" -D "$dir/primary" -l "$dir/primary.log" -w -t 30 start >/dev/null || fail "the primary did not start"
step "initdb and start (archiving on)"

# --- 2. Chipin's schema and a merchant, by the CLI.
export DATABASE_URL="postgres://postgres@127.0.0.1:$src_port/postgres"
MASTER_KEY=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
export DATA_DIR="$dir/chipin" MASTER_KEY LOG_LEVEL=warn CHIPIN_ENV=sandbox
unset DATABASE_POOLER DATABASE_LISTEN_URL PORT HOST PUBLIC_URL
mkdir -p "$DATA_DIR"
migrated=$(npm run -s chipin -- migrate 2>&1) || fail "migrate: $migrated"
merchant=$(npm run -s chipin -- merchant create --name 'Drill Shop' --email "drill-$(date +%s)@shop.test" --json 2>&1) || fail "merchant create: $merchant"
api_key=$(echo "$merchant" | json .api_key)
api_secret=$(echo "$merchant" | json .api_secret)
step "migrate and merchant create"

# --- 3. The base backup, verified.
backup_out=$("${as[@]}" "$dir/bin/base-backup.sh" "host=127.0.0.1 port=$src_port user=postgres" "$dir/base" 2>&1) || fail "base backup: $backup_out"
step "base backup (pg_basebackup, verify)"

# --- 4. chipin serve on the sandbox PSP; purchases created and paid through its API.
PORT=$http_port HOST=127.0.0.1 node --import tsx src/main.ts serve >"$dir/serve.log" 2>&1 &
serve_pid=$!
url="http://127.0.0.1:$http_port"
for _ in $(seq 1 120); do
  curl -sf -m 2 -o /dev/null "$url/readyz" && break
  kill -0 "$serve_pid" 2>/dev/null || fail "chipin serve exited: $(tail -n 5 "$dir/serve.log")"
  sleep 0.5
done
curl -sf -m 2 -o /dev/null "$url/readyz" || fail "chipin serve not ready within 60 s"
token=$(curl -sf -m 10 -u "$api_key:$api_secret" -d grant_type=client_credentials "$url/api/token" | json .access_token) || fail "no access token"
step "chipin serve ready"

# Creates and pays one purchase (Merchant API v1, then the sandbox's leader payment with the
# success card); its id is in $bought once both calls are answered: acknowledged.
buy() {
  local n=$1 amount=$2 id
  id=$(curl -sf -m 30 -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -H "Idempotency-Key: drill-$n" \
    -d "{\"title\":\"Drill $n\",\"amount\":$amount,\"client\":{\"email\":\"drill-$n@example.com\"}}" \
    "$url/api/merchants/v1/purchases" | json .id) || fail "purchase $n not created"
  curl -sf -m 30 -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -o /dev/null \
    -d '{"card_number":"4242 4242 4242 4242"}' "$url/api/sandbox/purchases/pur_$id/pay" || fail "purchase $n not paid"
  bought=$id
}
before_ids=()
for i in $(seq 1 "$before_n"); do
  buy "b$i" $((10000 + i * 1000))
  before_ids+=("$bought")
done
step "$before_n purchases paid before T"

# --- 5. T, and the figures at T in the same snapshot. Nothing of the drill is in flight: every
# request above was answered. The fingerprints are md5s of the rows' ids, states and amounts.
figures_sql="SELECT (SELECT count(*) || ' ' || coalesce(sum(amount_cents), 0) || ' ' || md5(coalesce(string_agg(id || ':' || state || ':' || amount_cents, ',' ORDER BY id), '')) FROM purchases),
  (SELECT count(*) || ' ' || coalesce(sum(amount_cents), 0) || ' ' || md5(coalesce(string_agg(id || ':' || purchase_id || ':' || kind || ':' || amount_cents, ',' ORDER BY id), '')) FROM ledger_entries)"
at_t=$(psql_at "$src_port" "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US+00'), f.* FROM ($figures_sql) f(p, l); COMMIT;") || fail "no time T"
IFS='|' read -r target p_at_t l_at_t <<<"$at_t"
step "T noted"

# --- 6. More purchases after T: the restore must have none of them.
after_ids=()
for i in $(seq 1 "$after_n"); do
  buy "a$i" $((50000 + i * 1000))
  after_ids+=("$bought")
done
at_end=$(psql_at "$src_port" "$figures_sql") || fail "no figures at the end"
IFS='|' read -r p_end l_end <<<"$at_end"
step "$after_n purchases paid after T"

# The segment holding the last commits is archived when it is full or archive_timeout passes: the
# drill switches it now and waits for the archiver (an operator restoring after a loss has what
# was archived: up to archive_timeout less).
kill "$serve_pid" 2>/dev/null || true
for _ in $(seq 1 40); do kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.5; done
kill -0 "$serve_pid" 2>/dev/null && fail "chipin serve still running 20 s after SIGTERM"
serve_pid=
last_seg=$(psql_at "$src_port" "SELECT pg_walfile_name(pg_switch_wal())")
for _ in $(seq 1 60); do
  [ "$(psql_at "$src_port" "SELECT coalesce(last_archived_wal >= '$last_seg', false) FROM pg_stat_archiver")" = t ] && break
  sleep 0.5
done
[ "$(psql_at "$src_port" "SELECT coalesce(last_archived_wal >= '$last_seg', false) FROM pg_stat_archiver")" = t ] || fail "segment $last_seg not archived within 30 s"
archived=$(find "$dir/archive" -maxdepth 1 -type f | wc -l)
"${as[@]}" "$pg/pg_ctl" -D "$dir/primary" -m fast -t 30 stop >/dev/null
step "WAL switched and archived, stopped"

# --- 7. Point-in-time restore to T into a new data directory, started on its own port.
restore_out=$("${as[@]}" "$dir/bin/restore.sh" "$dir/base" "$dir/restored" "$dir/archive" "$target" 2>&1) || fail "restore: $restore_out"
"${as[@]}" "$pg/pg_ctl" -D "$dir/restored" -l "$dir/restored.log" -o "-p $dst_port" -w -t 60 start >/dev/null || fail "the restored server did not start"
for _ in $(seq 1 120); do
  [ "$(psql_at "$dst_port" "SELECT pg_is_in_recovery()" 2>/dev/null)" = f ] && break
  sleep 0.5
done
[ "$(psql_at "$dst_port" "SELECT pg_is_in_recovery()")" = f ] || fail "the restored server still in recovery after 60 s"
step "restore to T, recovery, promote"

# --- 8. Exactly the rows of T.
restored=$(psql_at "$dst_port" "$figures_sql") || fail "no figures on the restored cluster"
IFS='|' read -r p_restored l_restored <<<"$restored"
ids_sql() { local list; list=$(printf "'%s'," "$@"); echo "SELECT count(*) FROM purchases WHERE id IN (${list%,})"; }
before_found=$(psql_at "$dst_port" "$(ids_sql "${before_ids[@]}")")
after_found=$(psql_at "$dst_port" "$(ids_sql "${after_ids[@]}")")
stopped_at=$(grep -o 'recovery stopping .*' "$dir/restored.log" | head -n 1 || true)
step "checks"

total_ms=$(($(ms) - start_ms))
ok=true
[ "$p_restored" = "$p_at_t" ] || ok=false
[ "$l_restored" = "$l_at_t" ] || ok=false
[ "$before_found" = "$before_n" ] || ok=false
[ "$after_found" = 0 ] || ok=false
[ "$p_end" != "$p_at_t" ] || ok=false # the changes after T did change the figures
[ "${l_at_t%% *}" -gt 0 ] || ok=false # the ledger has rows to compare
echo "== backup and restore drill ($(date -u +%FT%TZ), PostgreSQL $("$pg/postgres" -V | awk '{print $3}'))"
echo "T = $target"
printf '%-28s %s\n' "" "count  sum(amount_cents)  md5(rows)" \
  "purchases at T (primary)" "$p_at_t" "purchases at end (primary)" "$p_end" "purchases restored" "$p_restored" \
  "ledger at T (primary)" "$l_at_t" "ledger at end (primary)" "$l_end" "ledger restored" "$l_restored"
echo "acknowledged before T found: $before_found of $before_n; paid after T found: $after_found of $after_n"
echo "WAL files archived: $archived; recovery: ${stopped_at:-no stop line in the log}"
printf '  %s\n' "${durations[@]}"
awk -v ms="$total_ms" 'BEGIN { printf "total %.1f s\n", ms / 1000 }'
if $ok; then echo "PASS"; else echo "FAIL"; exit 1; fi
