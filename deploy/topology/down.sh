#!/usr/bin/env bash
# Stops what deploy/topology/up.sh started (each process by the id it recorded) and removes
# $CHIPIN_TOPOLOGY_DIR. docs/deployment.md#reference-topology-and-failover.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
[ -d "$TOPOLOGY_DIR" ] || { echo "nothing at $TOPOLOGY_DIR"; exit 0; }

# stop PIDFILE: SIGTERM, then SIGKILL after 15 s, only to a process this topology started (ours,
# lib.sh): a stale pid file naming another process is reported and left alone.
stop() {
  alive "$1" || return 0
  local pid
  pid=$(head -1 "$1")
  if ! ours "$pid"; then
    echo "not stopping process $pid named by $1: it is not one the topology started" >&2
    return 0
  fi
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 75); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null
}
# The supervisors first, so that none starts a Patroni again.
rm -f "$TOPOLOGY_DIR/run/supervise"
for node in node1 node2; do stop "$TOPOLOGY_DIR/run/supervise-$node.pid"; done
for i in 1 2 3; do stop "$TOPOLOGY_DIR/run/chipin$i.pid"; done
stop "$TOPOLOGY_DIR/pgbouncer/pgbouncer.pid"
stop "$TOPOLOGY_DIR/pgbouncer2/pgbouncer.pid"
stop "$TOPOLOGY_DIR/run/haproxy.pid"
stop "$TOPOLOGY_DIR/run/haproxy2.pid"
# Patroni stops its PostgreSQL on SIGTERM; a postmaster left behind (its Patroni was killed by
# the drill and not started again) is stopped from its own pid file.
for node in node1 node2; do
  stop "$TOPOLOGY_DIR/run/patroni-$node.pid"
  stop "$TOPOLOGY_DIR/$node/postmaster.pid"
done
for i in 1 2 3; do stop "$TOPOLOGY_DIR/run/etcd$i.pid"; done
rm -rf "$TOPOLOGY_DIR"
echo "== down: $TOPOLOGY_DIR removed"
