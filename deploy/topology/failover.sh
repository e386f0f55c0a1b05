#!/usr/bin/env bash
# npm run drill:failover: with the topology up (npm run topology:up), a bounded load of
# purchases created and paid through HAProxy, the leader killed with SIGKILL, then PASS/FAIL on
# kill -> first successful write, acknowledged purchases present on the new primary, no card
# charged twice, no job run twice, no ledger row written twice and no answer 500
# (deploy/topology/failover-drill.ts). DRILL_KILL=postgres kills the postmaster
# only (Patroni restarts it in place). The killed node's supervisor (deploy/topology/supervise.sh)
# starts its Patroni again, which rewinds it and makes it the synchronous standby: before the load
# starts, this waits (at most DRILL_WAIT_S, 180 s) for a leader with a synchronous standby, so the
# drill runs again and again without a manual step. docs/deployment.md#reference-topology-and-failover.
set -euo pipefail
# shellcheck source=deploy/topology/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$REPO"
[ -f "$TOPOLOGY_DIR/merchant.json" ] || { echo "no topology at $TOPOLOGY_DIR: npm run topology:up first" >&2; exit 2; }
wait_for "${DRILL_WAIT_S:-180}" "a leader with a synchronous standby (patronictl -c $TOPOLOGY_DIR/node1.yml list)" healthy_pair
wait_for 30 "HAProxy's Chipin port" http_ok http://127.0.0.1:7000/readyz
status=0
CHIPIN_TOPOLOGY_DIR=$TOPOLOGY_DIR node --import tsx deploy/topology/failover-drill.ts || status=$?
patronictl -c "$TOPOLOGY_DIR/node1.yml" list 2>/dev/null || true
exit "$status"
