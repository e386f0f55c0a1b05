#!/usr/bin/env bash
# deploy/topology/supervise.sh NODE: started by deploy/topology/up.sh (as postgres) for each
# Patroni node. It runs the node's Patroni and, when Patroni exits (the failover drill's SIGKILL,
# a crash), runs it again, so the node rewinds its PostgreSQL (pg_rewind) and rejoins as the
# synchronous standby without a manual step: what systemd's Restart= does for
# deploy/systemd/patroni-chipin.service. docs/deployment.md#reference-topology-and-failover.
#
# Before a restart it waits RESTART_DELAY seconds (default 5). If the node's PostgreSQL died too
# (a machine lost), it also waits, at most LEADER_WAIT seconds (default 60), until etcd's leader
# key names another node or none: a Patroni started while its own key is still unexpired would
# restart its PostgreSQL as the primary in place instead of letting the standby take over. If only
# Patroni died, its PostgreSQL still runs as the primary and Patroni is started at once after the
# delay, to take the key back before it expires.
#
# It stops when $TOPOLOGY_DIR/run/supervise is gone (down.sh removes it before stopping anything),
# and after MAX_RESTARTS (default 100) restarts: the loop is bounded.
set -uo pipefail
# shellcheck source=deploy/topology/lib.sh
. "$(dirname "$0")/lib.sh"
node=${1:?usage: supervise.sh node1|node2}
yml=$TOPOLOGY_DIR/$node.yml
log=$TOPOLOGY_DIR/$node.log
pidfile=$TOPOLOGY_DIR/run/patroni-$node.pid
flag=$TOPOLOGY_DIR/run/supervise
endpoints=$(sed -n 's/^  hosts: //p' "$yml")
leader_key() { ETCDCTL_API=3 etcdctl --endpoints="$endpoints" --command-timeout=2s get /service/chipin/leader --print-value-only 2>/dev/null; }
note() { echo "$(date -u '+%F %T') supervise.sh: $*" >>"$log"; }

for restarts in $(seq 0 "${MAX_RESTARTS:-100}"); do
  [ -e "$flag" ] || exit 0
  [ "$restarts" -gt 0 ] && note "starting Patroni again (restart $restarts)"
  patroni "$yml" >>"$log" 2>&1 &
  echo $! >"$pidfile"
  wait $!
  note "Patroni exited with status $?; restarting in ${RESTART_DELAY:-5} s"
  sleep "${RESTART_DELAY:-5}"
  if ! alive "$TOPOLOGY_DIR/$node/postmaster.pid"; then
    deadline=$((SECONDS + ${LEADER_WAIT:-60}))
    while [ -e "$flag" ] && [ "$SECONDS" -lt "$deadline" ]; do
      key=$(leader_key) && [ "$key" != "$node" ] && break
      sleep 1
    done
    note "PostgreSQL was down too; etcd's leader key now names '${key:-}'"
  fi
done
note "gave up after ${MAX_RESTARTS:-100} restarts"
