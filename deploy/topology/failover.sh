#!/usr/bin/env bash
# npm run drill:failover: with the topology up (npm run topology:up), a bounded load of
# purchases created and paid through HAProxy, the leader killed with SIGKILL, then PASS/FAIL on
# kill -> first successful write, acknowledged purchases present on the new primary, no card
# charged twice, no job run twice, no ledger row written twice and no answer 500
# (deploy/topology/failover-drill.ts). DRILL_KILL=postgres kills the postmaster
# only (Patroni restarts it in place). The killed node stays down until deploy/topology/rejoin.sh
# starts it again. docs/deployment.md#reference-topology-and-failover.
set -euo pipefail
# shellcheck source=deploy/topology/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$REPO"
[ -f "$TOPOLOGY_DIR/merchant.json" ] || { echo "no topology at $TOPOLOGY_DIR: npm run topology:up first" >&2; exit 2; }
status=0
CHIPIN_TOPOLOGY_DIR=$TOPOLOGY_DIR node --import tsx deploy/topology/failover-drill.ts || status=$?
patronictl -c "$TOPOLOGY_DIR/node1.yml" list 2>/dev/null || true
exit "$status"
