#!/usr/bin/env bash
# deploy/topology/rejoin.sh node1|node2: waits until the node is the synchronous standby again.
# Its supervisor (deploy/topology/supervise.sh) starts a killed node's Patroni again by itself:
# Patroni rewinds its PostgreSQL (pg_rewind) to the new leader's timeline and it becomes the
# synchronous standby. If the supervisor is not running (it gave up, or was stopped), this starts
# it again. docs/deployment.md#reference-topology-and-failover.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
node=${1:?usage: rejoin.sh node1|node2}
case $node in node1) rest=8008 ;; node2) rest=8009 ;; *) echo "no node $node" >&2; exit 2 ;; esac
[ -e "$TOPOLOGY_DIR/run/supervise" ] || { echo "no topology at $TOPOLOGY_DIR" >&2; exit 2; }
if ! alive "$TOPOLOGY_DIR/run/supervise-$node.pid"; then
  alive "$TOPOLOGY_DIR/run/patroni-$node.pid" && { echo "$node's Patroni runs without its supervisor: leaving it alone" >&2; exit 2; }
  start_supervised "$node"
fi
wait_for 120 "$node to be the synchronous standby" http_ok "http://127.0.0.1:$rest/sync"
patronictl -c "$TOPOLOGY_DIR/$node.yml" list
