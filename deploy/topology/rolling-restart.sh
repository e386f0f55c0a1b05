#!/usr/bin/env bash
# npm run drill:rolling: with the topology up (npm run topology:up), a rolling restart of the 3
# Chipin processes under load (deploy/topology/planned-drill.ts), one at a time: SIGTERM (the
# process drains: /readyz answers 503 for SHUTDOWN_DRAIN_MS, 5 s, so HAProxy's checks take it out
# while it still serves, then it closes), a bounded wait for its exit, the same process started
# again, and a wait until HAProxy sends it requests again before the next one. PASS: no failed
# request, nothing acknowledged lost. Only a process the topology started is signalled (ours,
# lib.sh). docs/deployment.md#planned-switchover-and-rolling-restart.
set -euo pipefail
# shellcheck source=deploy/topology/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$REPO"
[ -f "$TOPOLOGY_DIR/merchant.json" ] || { echo "no topology at $TOPOLOGY_DIR: npm run topology:up first" >&2; exit 2; }

if [ "${1:-}" = --action ]; then
  chipin_settings
  # The deploy: the bundle built from the code as it is now, then each process restarted on it.
  npm run build --silent
  # HAProxy's view of a server: its admin socket's "show servers state" operational state (2 = up),
  # in both HAProxies (docs/deployment.md#two-of-each-in-front).
  haproxy_up() {
    local sock
    for sock in haproxy haproxy2; do
      echo "show servers state chipin" | timeout 2 socat - "UNIX-CONNECT:$TOPOLOGY_DIR/run/$sock.sock" 2>/dev/null |
        awk -v s="chipin$1" '$4 == s && $6 == 2 { found = 1 } END { exit !found }' || return 1
    done
  }
  for i in 1 2 3; do
    pidfile=$TOPOLOGY_DIR/run/chipin$i.pid
    start=$SECONDS
    if alive "$pidfile"; then
      pid=$(head -1 "$pidfile")
      ours "$pid" || { echo "process $pid named by $pidfile is not one the topology started: not signalled" >&2; exit 1; }
      kill -TERM "$pid"
      # The drain (5 s) and the requests in flight; SHUTDOWN_DRAIN_MS plus 25 s.
      wait_for 30 "chipin$i to exit" bash -c "! kill -0 $pid"
    fi
    stopped=$(date +%s%N)
    start_chipin "$i"
    wait_for 60 "chipin$i to be ready" http_ok "http://127.0.0.1:310$i/readyz"
    ready=$(date +%s%N)
    wait_for 30 "both HAProxies to send chipin$i requests again" haproxy_up "$i"
    echo "chipin$i restarted in $((SECONDS - start)) s: started to ready in $(((ready - stopped) / 1000000)) ms, back behind HAProxy $((($(date +%s%N) - ready) / 1000000)) ms later"
  done
  exit 0
fi

command -v socat >/dev/null || { echo "socat is missing (apt-get install socat): the drill reads HAProxy's admin socket" >&2; exit 2; }
wait_for 60 "the 3 Chipin processes behind HAProxy" http_ok http://127.0.0.1:7000/readyz
status=0
CHIPIN_TOPOLOGY_DIR=$TOPOLOGY_DIR DRILL_NAME=rolling DRILL_ACTION="bash deploy/topology/rolling-restart.sh --action" \
  node --import tsx deploy/topology/planned-drill.ts || status=$?
exit "$status"
