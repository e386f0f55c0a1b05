# shellcheck shell=bash disable=SC2034
# (Sourced by bash scripts, which use the variables set here.)
# Shared by up.sh, down.sh, supervise.sh, the drills and rejoin.sh: where the topology lives and how to wait.
TOPOLOGY_DIR=${CHIPIN_TOPOLOGY_DIR:-/tmp/chipin-topology}
# PostgreSQL 15's server binaries (Debian's postgresql-15); up.sh gives Patroni the same (bin_dir).
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# wait_for SECONDS DESCRIPTION COMMAND...: runs COMMAND every 0.2 s until it succeeds.
wait_for() {
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "timed out waiting for $what" >&2
      return 1
    fi
    sleep 0.2
  done
}

# http_ok URL: the URL answers 2xx.
http_ok() { curl -fsS -o /dev/null --max-time 2 "$1"; }

# as_postgres COMMAND...: PostgreSQL refuses to run as root.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# alive PIDFILE: the process named in PIDFILE runs.
alive() { [ -s "$1" ] && kill -0 "$(head -1 "$1")" 2>/dev/null; }

# ours PID: the process is one this topology started: its command line or environment names
# $TOPOLOGY_DIR (a config file, DATA_DIR, ETCD_DATA_DIR), or it runs in a directory under it (a
# postmaster runs in its data directory). A pid file left behind by a crash or a drill may name a
# process id the system has since given to something else; that process is never signalled.
ours() {
  local pid=$1 cwd
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$TOPOLOGY_DIR" && return 0
  tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qF -- "$TOPOLOGY_DIR" && return 0
  cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null) || return 1
  [ "$cwd" = "$TOPOLOGY_DIR" ] || [ "${cwd#"$TOPOLOGY_DIR"/}" != "$cwd" ]
}

# start_supervised NODE: the node's Patroni under deploy/topology/supervise.sh (as postgres, in a
# session of its own), which records Patroni's id in run/patroni-NODE.pid; the loop's own id goes
# to run/supervise-NODE.pid. Its environment names $TOPOLOGY_DIR, so that ours knows it.
start_supervised() {
  local node=$1
  # shellcheck disable=SC2016 # expanded by the inner bash
  as_postgres env CHIPIN_TOPOLOGY_DIR="$TOPOLOGY_DIR" bash -c 'setsid bash "$1" "$2" >/dev/null 2>&1 & echo $! > "$3"' _ \
    "$REPO/deploy/topology/supervise.sh" "$node" "$TOPOLOGY_DIR/run/supervise-$node.pid"
}

# healthy_pair: one node leads and the other is its synchronous standby (Patroni's REST API).
healthy_pair() {
  { http_ok http://127.0.0.1:8008/primary && http_ok http://127.0.0.1:8009/sync; } ||
    { http_ok http://127.0.0.1:8009/primary && http_ok http://127.0.0.1:8008/sync; }
}

# The two load-balancer "machines" (docs/deployment.md#two-of-each-in-front): HAProxy N and
# PgBouncer N listen on 127.0.0.N, the same ports on both; PgBouncer N sends its server connections
# to HAProxy N's port 5000.

# start_haproxy N: the reference file with its binds on 127.0.0.N, its admin socket run/haproxy.sock
# (run/haproxy2.sock for the second) and its pid file beside it.
start_haproxy() {
  local n=$1 name=haproxy
  [ "$n" = 1 ] || name=haproxy$n
  sed -e "s|^    stats socket .*|    stats socket $TOPOLOGY_DIR/run/$name.sock mode 600 level admin|" \
    -e "s|^    bind 127\.0\.0\.1:|    bind 127.0.0.$n:|" \
    "$REPO/deploy/haproxy/haproxy.cfg" > "$TOPOLOGY_DIR/$name.cfg"
  haproxy -D -p "$TOPOLOGY_DIR/run/$name.pid" -f "$TOPOLOGY_DIR/$name.cfg"
}

# start_pgbouncer N: the reference file on 127.0.0.N:6432 in front of HAProxy N's leader port, its
# files in pgbouncer/ (pgbouncer2/ for the second), loopback trust (userlist.txt, written by up.sh).
start_pgbouncer() {
  local n=$1 dir=$TOPOLOGY_DIR/pgbouncer
  [ "$n" = 1 ] || dir=$TOPOLOGY_DIR/pgbouncer$n
  mkdir -p "$dir"
  chmod 777 "$dir"
  sed -e "s|^\* = host=.*|* = host=127.0.0.$n port=5000|" \
    -e "s|^listen_addr = .*|listen_addr = 127.0.0.$n|" \
    -e "s|^unix_socket_dir = .*|unix_socket_dir =|" \
    -e "s|^auth_type = .*|auth_type = trust|" \
    -e "s|^auth_file = .*|auth_file = $TOPOLOGY_DIR/userlist.txt|" \
    -e "s|^logfile = .*|logfile = $dir/pgbouncer.log|" \
    -e "s|^pidfile = .*|pidfile = $dir/pgbouncer.pid|" \
    "$REPO/deploy/pgbouncer/pgbouncer.ini" > "$dir/pgbouncer.ini"
  chmod 644 "$dir/pgbouncer.ini"
  local as=()
  [ "$(id -u)" = 0 ] && as=(-u postgres)
  pgbouncer "${as[@]}" -d "$dir/pgbouncer.ini"
}

# bouncer_ok N: PgBouncer N answers a query on the chipin database.
bouncer_ok() { "$PG_BIN/psql" -h "127.0.0.$1" -p 6432 -U postgres -d chipin -XAtqc 'SELECT 1' >/dev/null 2>&1; }

# chipin_settings: the settings of the topology's Chipin processes, in the chipin_env array (after
# up.sh wrote master.key). The database through either PgBouncer (a URL with both hosts: each new
# connection goes to the first that accepts it, src/db/host-list.ts); LISTEN through either
# HAProxy's primary port (a transaction pool cannot hold it); the back office's heavy reads through
# either HAProxy's port 5001, whose backend reaches one standby at a time, as the staleness bound
# requires (docs/deployment.md#read-replicas).
chipin_settings() {
  chipin_env=(MASTER_KEY="$(cat "$TOPOLOGY_DIR/master.key")"
    DATABASE_URL=postgres://postgres@127.0.0.1:6432,127.0.0.2:6432/chipin DATABASE_POOLER=transaction
    DATABASE_LISTEN_URL=postgres://postgres@127.0.0.1:5000,127.0.0.2:5000/chipin
    DATABASE_READ_URL=postgres://postgres@127.0.0.1:5001,127.0.0.2:5001/chipin
    PUBLIC_URL=http://127.0.0.1:7000 TRUST_PROXY=127.0.0.1 HOST=127.0.0.1
    # On SIGTERM, /readyz fails for 5 s while requests are still served: HAProxy's checks (every
    # 2 s, down after 2) take the process out before it closes (docs/deployment.md#draining).
    SHUTDOWN_DRAIN_MS=5000)
}

# start_chipin N [DIR]: `chipin serve` from the bundle (npm run build: dist/main.mjs, as production
# runs it, docs/deployment.md#the-bundle) of DIR (default: this checkout; the upgrade drill's next
# version runs from its own copy) on 310N, its /metrics on 910N (a loopback port of its own, not
# behind HAProxy's 7000), its id in run/chipinN.pid. chipin_settings and the build first.
start_chipin() {
  local i=$1 from=${2:-$REPO}
  mkdir -p "$TOPOLOGY_DIR/chipin$i"
  (cd "$from" && exec env "${chipin_env[@]}" PORT="310$i" METRICS_PORT="910$i" DATA_DIR="$TOPOLOGY_DIR/chipin$i" setsid node --enable-source-maps dist/main.mjs serve \
    >>"$TOPOLOGY_DIR/chipin$i.log" 2>&1) &
  echo $! >"$TOPOLOGY_DIR/run/chipin$i.pid"
}
