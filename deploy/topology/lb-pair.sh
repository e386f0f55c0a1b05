#!/usr/bin/env bash
# npm run drill:lb-pair: with the topology up (npm run topology:up), the load-balancer machine of
# 127.0.0.1 lost piece by piece under the planned drills' load (deploy/topology/planned-drill.ts):
# its PgBouncer killed with SIGKILL (Chipin's pools go on through the other PgBouncer, their
# DATABASE_URL naming both), 8 s later its HAProxy killed too (the clients go on through the other
# HAProxy's address, the LISTEN and read-replica connections through the other HAProxy's ports),
# 8 s later both started again. The clients' failed requests (5xx or no answer) are counted: PASS
# if at most DRILL_MAX_FAILED (default 12: two per client, the requests a killed process had in
# flight), no answer 500 and the money checks (nothing lost, nothing charged, refunded, run or
# written twice). The 409s answered to the retries of a failed request while its key is still
# leased are counted and not bounded: their number is the client's pace of retrying.
# Only a process the topology started is signalled (ours, lib.sh). docs/deployment.md#two-of-each-in-front.
set -euo pipefail
# shellcheck source=deploy/topology/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$REPO"
[ -f "$TOPOLOGY_DIR/merchant.json" ] || { echo "no topology at $TOPOLOGY_DIR: npm run topology:up first" >&2; exit 2; }

# kill_from PIDFILE WHAT: SIGKILL to the process a pid file names, if the topology started it.
kill_from() {
  local pid
  alive "$1" || { echo "$2 is not running ($1)" >&2; return 1; }
  pid=$(head -1 "$1")
  ours "$pid" || { echo "process $pid named by $1 is not one the topology started: not signalled" >&2; return 1; }
  kill -KILL "$pid"
  echo "$(date -u +%T.%3N) SIGKILL $2 (pid $pid)"
}

if [ "${1:-}" = --action ]; then
  sleep 2
  kill_from "$TOPOLOGY_DIR/pgbouncer/pgbouncer.pid" "PgBouncer 127.0.0.1:6432"
  sleep "${DRILL_GAP_S:-8}"
  kill_from "$TOPOLOGY_DIR/run/haproxy.pid" "HAProxy 127.0.0.1 (5000, 5001, 7000)"
  sleep "${DRILL_GAP_S:-8}"
  # The machine back: its HAProxy first (its PgBouncer's server connections go through it).
  rm -f "$TOPOLOGY_DIR/run/haproxy.pid" "$TOPOLOGY_DIR/pgbouncer/pgbouncer.pid"
  start_haproxy 1
  start_pgbouncer 1
  wait_for 30 "PgBouncer 127.0.0.1:6432 again" bouncer_ok 1
  wait_for 30 "HAProxy 127.0.0.1:7000 again" http_ok http://127.0.0.1:7000/readyz
  echo "$(date -u +%T.%3N) HAProxy and PgBouncer of 127.0.0.1 started again"
  exit 0
fi

wait_for 60 "the 3 Chipin processes behind both HAProxies" bash -c 'curl -fsS -o /dev/null --max-time 2 http://127.0.0.1:7000/readyz && curl -fsS -o /dev/null --max-time 2 http://127.0.0.2:7000/readyz'
status=0
CHIPIN_TOPOLOGY_DIR=$TOPOLOGY_DIR DRILL_NAME=lb-pair DRILL_MAX_FAILED=${DRILL_MAX_FAILED:-12} DRILL_MAX_409= DRILL_ACTION="bash deploy/topology/lb-pair.sh --action" \
  node --import tsx deploy/topology/planned-drill.ts || status=$?
exit "$status"
