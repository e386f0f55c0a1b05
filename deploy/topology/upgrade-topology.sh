#!/usr/bin/env bash
# npm run drill:upgrade-topology: with the topology up (npm run topology:up), version N (this
# checkout's bundle) rolled to version N+1 and back under the planned drills' load
# (deploy/topology/planned-drill.ts, the failover drill's creates, payments and refunds with its
# money checks), one process at a time through both HAProxies, as an operator deploys a release
# with a migration (docs/deployment.md#upgrades).
#
# N+1 is this checkout plus a synthetic expand step, built in a copy under the topology's directory
# ($TOPOLOGY_DIR/upgrade-n1, never in src/): migration NNN (the next number) adds a nullable column
# purchases.upgrade_drill_note, which N+1 writes on every purchase it creates and reads with every
# purchase it reads (its purchase repository's column list); N neither writes nor reads it.
#
# For each process: drain (SIGTERM: /readyz 503 for SHUTDOWN_DRAIN_MS while it still serves, so
# both HAProxies take it out), its exit, then, before the first N+1 process only, N+1's `chipin
# migrate` once; N+1 started, ready, back in both HAProxies. After the first, N and N+1 serve
# side by side for DRILL_SIDE_BY_SIDE_S (20 s). Then the column's rows are checked (N+1 wrote it,
# N wrote purchases without it after N+1's first), every process is rolled back to N the same way
# (N on N+1's schema, as the expand/contract rule allows), and the synthetic step is contracted,
# a drill-only clean-up N permits since it never reads the column: the column dropped and the
# migration's row removed, so the drill runs again from the same state.
#
# PASS: no failed request (no 5xx, no connection cut, no timeout), every step of the action
# succeeded, the money checks. Only a process the topology started is signalled (ours, lib.sh).
set -euo pipefail
# shellcheck source=deploy/topology/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$REPO"
[ -f "$TOPOLOGY_DIR/merchant.json" ] || { echo "no topology at $TOPOLOGY_DIR: npm run topology:up first" >&2; exit 2; }
NEXT=$TOPOLOGY_DIR/upgrade-n1
psql_primary() { "$PG_BIN/psql" -h 127.0.0.1 -p 5000 -U postgres -d chipin -XAtqv ON_ERROR_STOP=1 -c "$1"; }
ms_since() { echo $(((${EPOCHREALTIME/./} - $1) / 1000)); }

if [ "${1:-}" = --action ]; then
  chipin_settings
  version=$(cat "$NEXT/version")
  haproxy_up() {
    local sock
    for sock in haproxy haproxy2; do
      echo "show servers state chipin" | timeout 2 socat - "UNIX-CONNECT:$TOPOLOGY_DIR/run/$sock.sock" 2>/dev/null |
        awk -v s="chipin$1" '$4 == s && $6 == 2 { found = 1 } END { exit !found }' || return 1
    done
  }
  # replace N DIR LABEL: process N drained and stopped, then started again from DIR's bundle.
  replace() {
    local i=$1 from=$2 label=$3 pidfile=$TOPOLOGY_DIR/run/chipin$1.pid t0 stopped ready pid
    t0=${EPOCHREALTIME/./}
    if alive "$pidfile"; then
      pid=$(head -1 "$pidfile")
      ours "$pid" || { echo "process $pid named by $pidfile is not one the topology started: not signalled" >&2; return 1; }
      kill -TERM "$pid"
      wait_for 30 "chipin$i to exit" bash -c "! kill -0 $pid"
    fi
    stopped=${EPOCHREALTIME/./}
    if [ "$label" = N+1 ] && [ "$i" = 1 ]; then
      # The release step, once: N+1's migrations while the two other N processes serve.
      (cd "$NEXT" && env "${chipin_env[@]}" DATA_DIR="$TOPOLOGY_DIR/chipin$i" node dist/main.mjs migrate) | sed 's/^/  migrate: /'
      echo "  N+1's chipin migrate took $(ms_since "$stopped") ms"
      stopped=${EPOCHREALTIME/./}
    fi
    start_chipin "$i" "$from"
    wait_for 60 "chipin$i ($label) to be ready" http_ok "http://127.0.0.1:310$i/readyz"
    ready=${EPOCHREALTIME/./}
    wait_for 30 "both HAProxies to send chipin$i requests again" haproxy_up "$i"
    echo "chipin$i -> $label in $(($(ms_since "$t0") / 1000)) s: drained and stopped in $(((stopped - t0) / 1000)) ms, started to ready in $(((ready - stopped) / 1000)) ms, back behind both HAProxies $(ms_since "$ready") ms later"
  }

  echo "-- N -> N+1 (migration $version)"
  replace 1 "$NEXT" N+1
  echo "   N+1 (chipin1) and N (chipin2, chipin3) serve side by side for ${DRILL_SIDE_BY_SIDE_S:-20} s"
  sleep "${DRILL_SIDE_BY_SIDE_S:-20}"
  replace 2 "$NEXT" N+1
  replace 3 "$NEXT" N+1
  # What each version wrote: N+1 every purchase it created with the column set, N without it, N's
  # after N+1's first (both served creations at once).
  read -r by_next by_old old_after < <(psql_primary "SELECT count(*) FILTER (WHERE upgrade_drill_note IS NOT NULL), count(*) FILTER (WHERE upgrade_drill_note IS NULL),
      count(*) FILTER (WHERE upgrade_drill_note IS NULL AND created_at > (SELECT min(created_at) FROM purchases WHERE upgrade_drill_note IS NOT NULL))
    FROM purchases WHERE created_at >= '$(cat "$NEXT/started")'" | tr '|' ' ')
  echo "   purchases created during the drill: by N+1 (column written) $by_next, by N (column NULL) $by_old, of them after N+1's first $old_after"
  status=0
  [ "$by_next" -gt 0 ] && [ "$old_after" -gt 0 ] || { echo "   FAIL: N and N+1 did not both create purchases side by side" >&2; status=1; }

  echo "-- N+1 -> N (N on N+1's schema)"
  for i in 1 2 3; do replace "$i" "$REPO" N; done
  # The synthetic contract step: N never reads the column, so it goes while N serves.
  psql_primary "SET lock_timeout = '3s'; ALTER TABLE purchases DROP COLUMN upgrade_drill_note; DELETE FROM schema_migrations WHERE version = $version" >/dev/null
  echo "   contracted: purchases.upgrade_drill_note dropped, migration $version forgotten"
  exit "$status"
fi

command -v socat >/dev/null || { echo "socat is missing (apt-get install socat): the drill reads HAProxy's admin sockets" >&2; exit 2; }
[ -z "$(psql_primary "SELECT 1 FROM information_schema.columns WHERE table_name = 'purchases' AND column_name = 'upgrade_drill_note'")" ] ||
  { echo "purchases.upgrade_drill_note exists: an earlier run stopped before its contract step; drop it and its migration row, or npm run topology:up again" >&2; exit 2; }

# N: this checkout's bundle, as the processes run it (each is restarted on it at the end).
npm run build --silent
# N+1: a copy of this checkout's sources with the synthetic expand step, its own bundle.
rm -rf "$NEXT"
mkdir -p "$NEXT"
cp -a src package.json tsconfig.json "$NEXT/"
ln -s "$(realpath node_modules)" "$NEXT/node_modules"
last=$(find src/db/migrations -name '[0-9][0-9][0-9]_*.sql' -printf '%f\n' | sort | tail -1)
version=$((10#${last:0:3} + 1))
printf -- "-- Synthetic expand step of npm run drill:upgrade-topology, in its copy of the sources only.\nALTER TABLE purchases ADD COLUMN upgrade_drill_note text;\n" \
  >"$NEXT/src/db/migrations/$(printf %03d "$version")_upgrade_drill_note.sql"
repo=$NEXT/src/purchases/purchase-repository.ts
sed -i -e 's/^const PURCHASE_COLUMNS = `p\.id, /const PURCHASE_COLUMNS = `p.upgrade_drill_note, p.id, /' \
  -e 's/payment_mode, language_set)$/payment_mode, language_set, upgrade_drill_note)/' \
  -e "s/\\\$33::date, \\\$34, \\\$35\$/\$33::date, \$34, \$35, 'written by N+1'/" "$repo"
for want in 'PURCHASE_COLUMNS = `p.upgrade_drill_note, p.id, ' 'language_set, upgrade_drill_note)' "\$35, 'written by N+1'"; do
  grep -qF -- "$want" "$repo" || { echo "could not make N+1 write and read the column ($want not in $repo): the purchase repository changed, adapt the drill" >&2; exit 2; }
done
(cd "$NEXT" && npm run build --silent)
echo "$version" >"$NEXT/version"
date -u '+%F %T.%6N+00' >"$NEXT/started"
wait_for 60 "the 3 Chipin processes behind both HAProxies" bash -c 'curl -fsS -o /dev/null --max-time 2 http://127.0.0.1:7000/readyz && curl -fsS -o /dev/null --max-time 2 http://127.0.0.2:7000/readyz'
echo "N = $(git rev-parse --short HEAD)$([ -n "$(git status --porcelain -- src)" ] && echo '+uncommitted') (this checkout), N+1 = N + migration $version (purchases.upgrade_drill_note, written and read by N+1) in $NEXT"
status=0
CHIPIN_TOPOLOGY_DIR=$TOPOLOGY_DIR DRILL_NAME=upgrade-topology DRILL_ACTION_TIMEOUT_MS=600000 DRILL_ACTION="bash deploy/topology/upgrade-topology.sh --action" \
  node --import tsx deploy/topology/planned-drill.ts || status=$?
exit "$status"
