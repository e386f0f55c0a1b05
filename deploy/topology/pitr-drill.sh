#!/usr/bin/env bash
# npm run drill:pitr, as root, with the topology up (npm run topology:up): a point-in-time restore
# across a failover, from pgBackRest's repository (docs/deployment.md#backup-and-restore).
#  1. `pgbackrest check` on the leader, then a full backup there.
#  2. Marker rows written through HAProxy's primary port (database pitr_drill, table markers).
#  3. The leader's Patroni and postmaster killed (SIGKILL, as the failover drill does); the standby
#     is promoted on a new timeline. A marker written there, the target time T noted, a marker
#     after T.
#  4. A wait for the killed node to rejoin as the synchronous standby (its supervisor restarts it),
#     and the check that HAProxy's port 5001 (Chipin's DATABASE_READ_URL) reaches it and that the
#     Chipin processes read from it again.
#  5. `pgbackrest check` on the new leader (a WAL switch, waited for until archived) and
#     `pgbackrest info`.
#  6. `pgbackrest restore --type=time --target=T --target-timeline=latest` into a new data directory,
#     started on a port of its own (DRILL_PITR_PORT, 5455) with archiving off; every marker before
#     T must be there and the one after T not, and its log must show the new timeline's history
#     file and WAL restored from the repository.
# Prints PASS or FAIL (exit 1) with the durations; every wait is bounded; the restored instance is
# stopped and removed whatever the outcome. It runs again at once: step 1 waits (at most
# DRILL_WAIT_S, 180 s) for a leader with a synchronous standby.
set -euo pipefail
# shellcheck source=deploy/topology/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$REPO"
[ "$(id -u)" = 0 ] || { echo "run as root: pgBackRest and the restored PostgreSQL run as the postgres user" >&2; exit 2; }
[ -f "$TOPOLOGY_DIR/merchant.json" ] || { echo "no topology at $TOPOLOGY_DIR: npm run topology:up first" >&2; exit 2; }
port=${DRILL_PITR_PORT:-5455}
restored=$TOPOLOGY_DIR/pitr-restored
log=$TOPOLOGY_DIR/pitr-restored.log
out=$TOPOLOGY_DIR/pitr-drill.log # pgBackRest's output, kept until down.sh
run=$(date -u +%Y%m%dT%H%M%S)-$$ # this run's markers
: >"$out"

fail() {
  echo "FAIL: $*"
  [ -s "$log" ] && { echo "--- $log (end)"; tail -n 25 "$log"; }
  exit 1
}
ms() { date +%s%3N; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.1f s", ms / 1000 }'; }
# sql PORT DATABASE STATEMENT: one unaligned line per row; 5 s to connect, 10 s a statement.
sql() {
  PGCONNECT_TIMEOUT=5 PGOPTIONS='-c statement_timeout=10000 -c client_min_messages=warning' timeout 20 \
    "$PG_BIN/psql" -h 127.0.0.1 -p "$1" -U postgres -d "$2" -XAtq -v ON_ERROR_STOP=1 -c "$3"
}
backrest() {
  local node=$1
  shift
  as_postgres timeout "${DRILL_BACKREST_S:-600}" pgbackrest --config="$TOPOLOGY_DIR/pgbackrest/$node.conf" --stanza=chipin "$@"
}
# show LABEL COMMAND...: runs it, its output to the drill's log and, indented, its last lines
# (SHOW_LINES, 5) to the console, less the "command begin" line listing every option.
show() {
  local label=$1 status=0
  shift
  echo "--- $label"
  "$@" >"$out.part" 2>&1 || status=$?
  cat "$out.part" >>"$out"
  grep -v 'command begin' "$out.part" | tail -n "${SHOW_LINES:-5}" | sed 's/^/    /'
  rm -f "$out.part"
  return "$status"
}
restored_pid() { [ -s "$restored/postmaster.pid" ] && head -1 "$restored/postmaster.pid"; }
stop_restored() {
  local pid
  pid=$(restored_pid) || return 0
  if kill -0 "$pid" 2>/dev/null && ours "$pid"; then
    as_postgres "$PG_BIN/pg_ctl" -D "$restored" -m fast -t 30 stop >/dev/null 2>&1 ||
      { kill -KILL "$pid" 2>/dev/null || true; }
  fi
}
cleanup() {
  stop_restored
  rm -rf "$restored"
}
trap cleanup EXIT
rest_port() { [ "$1" = node1 ] && echo 8008 || echo 8009; }
pg_port() { [ "$1" = node1 ] && echo 5451 || echo 5452; }
other() { [ "$1" = node1 ] && echo node2 || echo node1; }

# A restored instance a crashed run left behind is stopped and removed first.
cleanup
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "port $port is in use (DRILL_PITR_PORT chooses another)" >&2
  exit 2
fi
started=$(ms)
wait_for "${DRILL_WAIT_S:-180}" "a leader with a synchronous standby (patronictl -c $TOPOLOGY_DIR/node1.yml list)" healthy_pair
leader=node1
http_ok http://127.0.0.1:8008/primary 2>/dev/null || leader=node2
standby=$(other "$leader")
echo "== PITR drill: leader $leader, standby $standby, run $run"

# 1. Archiving works, and a full backup of the leader.
show "pgbackrest check on $leader" backrest "$leader" check || fail "pgbackrest check on $leader"
t=$(ms)
show "pgbackrest backup --type=full on $leader" backrest "$leader" backup --type=full || fail "pgbackrest backup"
backup_ms=$(($(ms) - t))

# 2. Markers before the failover, each in a transaction of its own, through HAProxy's port 5000.
[ "$(sql 5000 postgres "SELECT count(*) FROM pg_database WHERE datname = 'pitr_drill'")" = 1 ] ||
  sql 5000 postgres 'CREATE DATABASE pitr_drill' || fail "CREATE DATABASE pitr_drill"
sql 5000 pitr_drill "CREATE TABLE IF NOT EXISTS markers (run text, label text, port int DEFAULT inet_server_port(),
  written_at timestamptz DEFAULT clock_timestamp())" || fail "CREATE TABLE markers"
mark() { sql 5000 pitr_drill "INSERT INTO markers (run, label) VALUES ('$run', '$1') RETURNING port"; }
for m in before-1 before-2 before-3; do mark "$m" >/dev/null || fail "marker $m"; done

# 3. The leader lost: SIGKILL to its Patroni and its postmaster (only processes the topology
# started: ours, lib.sh).
patroni_pid=$(head -1 "$TOPOLOGY_DIR/run/patroni-$leader.pid")
postmaster_pid=$(head -1 "$TOPOLOGY_DIR/$leader/postmaster.pid")
for pid in "$patroni_pid" "$postmaster_pid"; do ours "$pid" || fail "pid $pid is not one of the topology's processes"; done
kill_at=$(ms)
kill -KILL "$patroni_pid" "$postmaster_pid"
echo "SIGKILL $leader's Patroni and postmaster (pids $patroni_pid, $postmaster_pid)"
wait_for 60 "$standby to be promoted" http_ok "http://127.0.0.1:$(rest_port "$standby")/primary" || fail "no promotion"
# The first marker on the new timeline, retried until the new leader takes it (HAProxy's checks).
deadline=$((SECONDS + 60))
until wrote=$(mark after-1 2>/dev/null) && [ "$wrote" = "$(pg_port "$standby")" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "no write on $standby within 60 s of its promotion"
  sleep 0.2
done
first_write_ms=$(($(ms) - kill_at))
new_tli=$(sql 5000 postgres 'SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)')
sleep 1
target=$(sql 5000 postgres 'SELECT clock_timestamp()')
sleep 1
mark after-2 >/dev/null || fail "marker after-2"
echo "$standby leads on timeline $((16#$new_tli)); target time T = $target (between after-1 and after-2)"

# 4. The killed node rejoins by itself (deploy/topology/supervise.sh), and the read URL follows.
wait_for 180 "$leader to rejoin as the synchronous standby" http_ok "http://127.0.0.1:$(rest_port "$leader")/sync" ||
  fail "$leader did not rejoin"
rejoin_ms=$(($(ms) - kill_at))
reads_on_standby() { [ "$(sql 5001 postgres 'SELECT inet_server_port(), pg_is_in_recovery()')" = "$(pg_port "$leader")|t" ]; }
wait_for 30 "HAProxy's port 5001 to reach $leader" reads_on_standby || fail "port 5001 does not reach $leader, the standby"
replica_in_use() { for p in 9101 9102 9103; do curl -fsS --max-time 2 "http://127.0.0.1:$p/metrics" | grep -q '^chipin_read_replica_in_use 1$' || return 1; done; }
wait_for 30 "the Chipin processes to read the standby (chipin_read_replica_in_use 1)" replica_in_use ||
  fail "a Chipin process does not read the standby"
echo "$leader rejoined as the synchronous standby $(secs "$rejoin_ms") after the kill; port 5001 reaches it; chipin_read_replica_in_use 1 on 9101-9103"

# 5. Archiving on the new timeline: check switches WAL and waits until it is archived, so the WAL
# holding after-2 is in the repository.
show "pgbackrest check on $standby (the new leader)" backrest "$standby" check || fail "pgbackrest check on $standby"
SHOW_LINES=100 show "pgbackrest info" backrest "$standby" info || fail "pgbackrest info"
history=$(find "$TOPOLOGY_DIR/pgbackrest/repo/archive/chipin" -name "$new_tli.history" | head -1)
[ -n "$history" ] || fail "no $new_tli.history in the repository"

# 6. The restore to T into a new data directory, started on its own port, archiving off (it must
# not push a timeline of its own into the repository).
as_postgres mkdir -m 700 "$restored"
t=$(ms)
show "pgbackrest restore --type=time --target='$target' --target-timeline=latest" \
  backrest "$standby" restore --pg1-path="$restored" --type=time --target="$target" --target-timeline=latest \
  --target-action=promote --archive-mode=off || fail "pgbackrest restore"
restore_ms=$(($(ms) - t))
: >"$log"
chown postgres: "$log"
t=$(ms)
# Patroni passes the port and listen_addresses on the command line, and its postgresql.conf names
# the node's pg_hba.conf and synchronous standby: all replaced here.
as_postgres "$PG_BIN/pg_ctl" -D "$restored" -l "$log" -t 120 -w -o "-c port=$port -c listen_addresses=127.0.0.1 \
  -c unix_socket_directories=$TOPOLOGY_DIR/run -c hba_file=$restored/pg_hba.conf -c ident_file=$restored/pg_ident.conf \
  -c synchronous_standby_names='' -c cluster_name=pitr-drill -c logging_collector=off -c log_line_prefix='%m '" start \
  >/dev/null || fail "the restored instance did not start"
promoted() { [ "$(sql "$port" postgres 'SELECT pg_is_in_recovery()')" = f ]; }
deadline=$((SECONDS + 120))
until promoted 2>/dev/null; do
  pid=$(restored_pid) && kill -0 "$pid" 2>/dev/null || fail "the restored instance stopped during recovery"
  [ "$SECONDS" -lt "$deadline" ] || fail "the restored instance was not promoted within 120 s"
  sleep 0.2
done
open_ms=$(($(ms) - t))
# The server may answer as promoted a moment before its log says it is open.
wait_for 10 "the restored server's log to say it is open" grep -q 'database system is ready to accept connections' "$log" || true
# Times from the server's log (its lines start with a millisecond timestamp): start to a
# consistent state, and start to open for writes.
log_ms() {
  local at
  at=$(grep -m1 -- "$1" "$log" | awk '{ print $1, $2, $3 }')
  [ -n "$at" ] && date -d "$at" +%s%3N
}
log_start=$(log_ms 'starting PostgreSQL') || log_start=
consistent=$(log_ms 'consistent recovery state reached') || consistent=
opened=$(log_ms 'database system is ready to accept connections') || opened=

# The checks.
labels=$(sql "$port" pitr_drill "SELECT string_agg(label, ' ' ORDER BY written_at) FROM markers WHERE run = '$run'")
restored_tli=$(sql "$port" postgres 'SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)')
stopping=$(grep -m1 'recovery stopping before' "$log" || true)
history_restored=$(grep -c "restored log file \"$new_tli.history\" from archive" "$log" || true)
segments_restored=$(grep -cE "restored log file \"$new_tli[0-9A-F]{16}\" from archive" "$log" || true)
echo "markers restored: '$labels' (expected 'before-1 before-2 before-3 after-1')"
echo "recovery: ${stopping#* LOG:  }"
echo "from the repository: $new_tli.history restored $history_restored time(s), $segments_restored WAL segment(s) of timeline $((16#$new_tli)); restored instance on timeline $((16#$restored_tli))"
figure() { printf '  %-57s %s\n' "$1" "$(secs "$2")"; }
figure "full backup (pgbackrest backup --type=full)" "$backup_ms"
figure "kill -> first write on the new leader" "$first_write_ms"
figure "kill -> old leader rejoined as synchronous standby" "$rejoin_ms"
figure "restore (pgbackrest restore: the files)" "$restore_ms"
if [ -n "$log_start" ] && [ -n "$consistent" ] && [ -n "$opened" ]; then
  figure "server start -> consistent recovery state (its log)" $((consistent - log_start))
  figure "server start -> target reached, promoted, open (its log)" $((opened - log_start))
else
  echo "  (the restored server's log lacks a line the start -> consistent and open times are read from)"
fi
figure "pg_ctl start -> promoted (seen by the drill)" "$open_ms"
figure "total" $(($(ms) - started))
pass=1
[ "$labels" = "before-1 before-2 before-3 after-1" ] || { echo "markers differ"; pass=0; }
[ "${history_restored:-0}" -ge 1 ] || { echo "the new timeline's history file was not restored from the repository"; pass=0; }
[ "${segments_restored:-0}" -ge 1 ] || { echo "no WAL of the new timeline was restored from the repository"; pass=0; }
[ $((16#$restored_tli)) -gt $((16#$new_tli)) ] || { echo "the restored instance is not on a timeline after $new_tli"; pass=0; }
[ -n "$stopping" ] || { echo "recovery did not stop at the target"; pass=0; }
if [ "$pass" = 1 ]; then echo PASS; else echo FAIL; exit 1; fi
