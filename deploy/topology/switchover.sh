#!/usr/bin/env bash
# npm run drill:switchover: with the topology up (npm run topology:up), a planned switchover under
# load (deploy/topology/planned-drill.ts): PgBouncer's PAUSE (in-flight transactions finish, new
# ones wait in PgBouncer instead of failing), patronictl switchover --force to the synchronous
# standby, a wait until HAProxy's primary port reaches the new leader, RECONNECT (server
# connections to the former leader are closed as they are released) and RESUME. PASS: no failed
# request, nothing acknowledged lost. DRILL_PAUSE=0 switches over without PAUSE/RESUME.
# docs/deployment.md#planned-switchover-and-rolling-restart.
set -euo pipefail
# shellcheck source=deploy/topology/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$REPO"
[ -f "$TOPOLOGY_DIR/merchant.json" ] || { echo "no topology at $TOPOLOGY_DIR: npm run topology:up first" >&2; exit 2; }

if [ "${1:-}" = --action ]; then
  # Both PgBouncers (127.0.0.1 and 127.0.0.2, docs/deployment.md#two-of-each-in-front) pause together.
  admin() {
    local ok=0
    for host in 127.0.0.1 127.0.0.2; do timeout 20 "$PG_BIN/psql" -h "$host" -p 6432 -U postgres -d pgbouncer -XAtqc "$1" >/dev/null || ok=1; done
    return "$ok"
  }
  primary_is() { [ "$("$PG_BIN/psql" -h 127.0.0.1 -p 5000 -U postgres -d postgres -XAtqc "SELECT setting FROM pg_settings WHERE name = 'port'" 2>/dev/null)" = "$1" ]; }
  if http_ok http://127.0.0.1:8008/primary 2>/dev/null; then from=node1 to=node2 port=5452; else from=node2 to=node1 port=5451; fi
  ms() { echo $(((${EPOCHREALTIME/./} - $1) / 1000)); }
  # A checkpoint first, so that the former leader's shutdown checkpoint (part of the pause) has
  # little to write.
  "$PG_BIN/psql" -h 127.0.0.1 -p 5000 -U postgres -d postgres -XAtqc CHECKPOINT
  # While paused, a transaction waits in PgBouncer for its server connection; query_wait_timeout
  # (5 s, deploy/pgbouncer/pgbouncer.ini) would fail those still waiting after 5 s, so it is raised
  # for the pause and set back after RESUME.
  if [ "${DRILL_PAUSE:-1}" = 1 ]; then
    admin "SET query_wait_timeout = ${DRILL_PAUSE_WAIT_S:-15}"
    admin 'PAUSE chipin'
  fi
  paused=${EPOCHREALTIME/./}
  status=0
  patronictl -c "$TOPOLOGY_DIR/node1.yml" switchover --leader "$from" --candidate "$to" --force >/dev/null || status=$?
  switched=$(ms "$paused")
  # Three connections in a row through HAProxy's port 5000 reach the new leader.
  on_new() { for _ in 1 2 3; do primary_is "$port" || return 1; done; }
  wait_for 30 "HAProxy's primary port to reach $to" on_new || status=1
  routed=$(ms "$paused")
  if [ "${DRILL_PAUSE:-1}" = 1 ]; then
    admin 'RECONNECT chipin' || status=1
    admin 'RESUME chipin' || status=1
    admin "SET query_wait_timeout = $(sed -n 's/^query_wait_timeout = //p' "$TOPOLOGY_DIR/pgbouncer/pgbouncer.ini")" || status=1
  fi
  echo "switchover $from -> $to: patronictl returned after $switched ms, HAProxy's port 5000 on $to after $routed ms, $([ "${DRILL_PAUSE:-1}" = 1 ] && echo "PgBouncer paused for $(ms "$paused") ms" || echo "no PAUSE")"
  exit "$status"
fi

wait_for "${DRILL_WAIT_S:-180}" "a leader with a synchronous standby (patronictl -c $TOPOLOGY_DIR/node1.yml list)" healthy_pair
status=0
CHIPIN_TOPOLOGY_DIR=$TOPOLOGY_DIR DRILL_NAME=switchover DRILL_ACTION="bash deploy/topology/switchover.sh --action" \
  node --import tsx deploy/topology/planned-drill.ts || status=$?
patronictl -c "$TOPOLOGY_DIR/node1.yml" list 2>/dev/null || true
exit "$status"
