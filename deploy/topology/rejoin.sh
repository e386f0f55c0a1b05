#!/usr/bin/env bash
# deploy/topology/rejoin.sh node1|node2: starts again the Patroni of a node the failover drill
# killed. Patroni rewinds its PostgreSQL (pg_rewind) to the new leader's timeline and it becomes
# the synchronous standby again; another drill may then run. docs/deployment.md#reference-topology-and-failover.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
node=${1:?usage: rejoin.sh node1|node2}
case $node in node1) rest=8008 ;; node2) rest=8009 ;; *) echo "no node $node" >&2; exit 2 ;; esac
alive "$TOPOLOGY_DIR/run/patroni-$node.pid" && { echo "$node's Patroni runs already" >&2; exit 2; }
as_postgres bash -c 'setsid patroni "$1" >>"$2" 2>&1 & echo $! > "$3"' _ \
  "$TOPOLOGY_DIR/$node.yml" "$TOPOLOGY_DIR/$node.log" "$TOPOLOGY_DIR/run/patroni-$node.pid"
wait_for 120 "$node to be the synchronous standby" http_ok "http://127.0.0.1:$rest/sync"
patronictl -c "$TOPOLOGY_DIR/$node.yml" list
