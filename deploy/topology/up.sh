#!/usr/bin/env bash
# npm run topology:up, as root: Chipin's reference topology on this one machine, from Debian 12's
# packages (apt-get install patroni etcd-server etcd-client haproxy pgbouncer pgbackrest
# postgresql-15 curl openssl): three etcd members, PostgreSQL primary + synchronous standby managed
# by Patroni, archiving its WAL through pgBackRest (stanza `chipin`, repository in pgbackrest/repo),
# HAProxy routing to the leader and to the standby, PgBouncer in transaction mode in front of the
# leader, and HAProxy in front of 3 Chipin processes (their back-office reads on the standby); HAProxy
# and PgBouncer twice, as on two machines: the first pair on 127.0.0.1, the second on 127.0.0.2 (the
# same ports), each PgBouncer in front of its own machine's HAProxy; Chipin's database URLs name
# both (docs/deployment.md#two-of-each-in-front). Everything lives under $CHIPIN_TOPOLOGY_DIR (default /tmp/chipin-topology);
# deploy/topology/down.sh stops it and removes it. It touches no service: a port below in use
# (Debian's etcd and pgbouncer services start on install) is refused with what probably holds it.
# Ports: etcd 2379-2384 (clients 2379, 2381, 2383), PostgreSQL 5451-5452, Patroni REST 8008-8009, HAProxy 5000 (primary),
# 5001 (standby), 7000 (Chipin HTTP), 8405 (its own metrics), PgBouncer 6432 (HAProxy and PgBouncer on
# 127.0.0.1 and on 127.0.0.2), Chipin 3101-3103 (their
# /metrics on 9101-9103); the drill's webhook receiver 5459. docs/deployment.md#reference-topology-and-failover.
set -euo pipefail
# shellcheck source=deploy/topology/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$REPO"

# Root: PostgreSQL and Patroni run as the postgres user (runuser), which owns their directories.
[ "$(id -u)" = 0 ] || { echo "run as root: up.sh runs PostgreSQL and Patroni as the postgres user and gives it the topology's directory" >&2; exit 2; }
for bin in etcd patroni patronictl haproxy pgbouncer pgbackrest curl openssl "$PG_BIN/postgres" "$PG_BIN/psql"; do
  command -v "$bin" >/dev/null || { echo "$bin is missing (apt-get install patroni etcd-server etcd-client haproxy pgbouncer pgbackrest postgresql-15 curl openssl; PG_BIN=$PG_BIN)" >&2; exit 2; }
done
[ -e "$TOPOLOGY_DIR" ] && { echo "$TOPOLOGY_DIR exists: run deploy/topology/down.sh first" >&2; exit 2; }
# A port in use is refused, never freed: the script stops no service and no process it did not
# start. Debian's etcd-server and pgbouncer packages start their own services on install, which
# hold 2379-2380 and 6432: the message says so, and the operator decides.
for address in 127.0.0.1:{2379,2380,2381,2382,2383,2384,5451,5452,8008,8009,5000,5001,6432,7000,8405,3101,3102,3103,9101,9102,9103} 127.0.0.2:{5000,5001,6432,7000,8405}; do
  port=${address#*:}
  if (exec 3<>"/dev/tcp/${address%:*}/$port") 2>/dev/null; then
    case $port in
      2379 | 2380 | 2381 | 2382 | 2383 | 2384) hint=" (Debian's etcd service starts on install: systemctl disable --now etcd, or service etcd stop)" ;;
      6432) hint=" (Debian's pgbouncer service starts on install: systemctl disable --now pgbouncer, or service pgbouncer stop)" ;;
      *) hint="" ;;
    esac
    echo "port $address is in use$hint" >&2
    exit 2
  fi
done

mkdir -p "$TOPOLOGY_DIR"/{run,etcd1,etcd2,etcd3}
chmod 755 "$TOPOLOGY_DIR"
echo "== topology in $TOPOLOGY_DIR"

# etcd: three members, each with its reference variables and the data directory replaced. They
# are started together: a member answers /health once a quorum (two) has elected a leader.
for i in 1 2 3; do
  sed -e "s|^ETCD_DATA_DIR=.*|ETCD_DATA_DIR=$TOPOLOGY_DIR/etcd$i|" "deploy/etcd/etcd$i.env" > "$TOPOLOGY_DIR/etcd$i.env"
  # shellcheck disable=SC1090 # written just above
  (set -a; . "$TOPOLOGY_DIR/etcd$i.env"; set +a; exec setsid etcd >"$TOPOLOGY_DIR/etcd$i.log" 2>&1) &
  echo $! > "$TOPOLOGY_DIR/run/etcd$i.pid"
done
for port in 2379 2381 2383; do wait_for 30 "etcd on $port" http_ok "http://127.0.0.1:$port/health"; done
echo "etcd        127.0.0.1:2379, 2381, 2383 (three members, one cluster)"

# pgBackRest: the reference file once per node (as on two machines: each its own data directory,
# log and lock), one repository for both, which stands in for another disk or machine
# (docs/deployment.md#backup-and-restore). Patroni's archive_command and restore_command name the
# node's copy.
chown postgres: "$TOPOLOGY_DIR" "$TOPOLOGY_DIR/run"
mkdir -p "$TOPOLOGY_DIR/pgbackrest/repo"
for node in node1 node2; do
  port=$([ "$node" = node1 ] && echo 5451 || echo 5452)
  sed -e "s|^repo1-path=.*|repo1-path=$TOPOLOGY_DIR/pgbackrest/repo|" \
      -e "s|^log-path=.*|log-path=$TOPOLOGY_DIR/pgbackrest/log-$node|" \
      -e "s|^lock-path=.*|lock-path=$TOPOLOGY_DIR/pgbackrest/lock-$node|" \
      -e "s|^pg1-path=.*|pg1-path=$TOPOLOGY_DIR/$node|" \
      -e "s|^pg1-port=.*|pg1-port=$port|" \
      -e "s|^pg1-socket-path=.*|pg1-socket-path=$TOPOLOGY_DIR/run|" \
      deploy/pgbackrest/pgbackrest.conf > "$TOPOLOGY_DIR/pgbackrest/$node.conf"
  mkdir -p "$TOPOLOGY_DIR/pgbackrest/log-$node" "$TOPOLOGY_DIR/pgbackrest/lock-$node"
done
chown -R postgres: "$TOPOLOGY_DIR/pgbackrest"
chmod 700 "$TOPOLOGY_DIR/pgbackrest/repo"
backrest() { local node=$1; shift; as_postgres pgbackrest --config="$TOPOLOGY_DIR/pgbackrest/$node.conf" --stanza=chipin "$@"; }

# Patroni: each node's reference file with its paths replaced; runs as postgres.
start_node() {
  local node=$1
  sed -e "s|^  data_dir: .*|  data_dir: $TOPOLOGY_DIR/$node|" \
      -e "s|^  pgpass: .*|  pgpass: $TOPOLOGY_DIR/run/$node.pgpass|" \
      -e "s|^  bin_dir: .*|  bin_dir: $PG_BIN|" \
      -e "s|^    unix_socket_directories: .*|    unix_socket_directories: $TOPOLOGY_DIR/run|" \
      -e "s|--config=/etc/pgbackrest/pgbackrest.conf|--config=$TOPOLOGY_DIR/pgbackrest/$node.conf|" \
      "deploy/patroni/$node.yml" > "$TOPOLOGY_DIR/$node.yml"
  chown postgres: "$TOPOLOGY_DIR/$node.yml"
  start_supervised "$node"
}
# Patroni runs under deploy/topology/supervise.sh, which starts it again after it exits, until
# down.sh removes this file.
touch "$TOPOLOGY_DIR/run/supervise"
start_node node1
wait_for 90 "node1 to lead" http_ok http://127.0.0.1:8008/primary
echo "patroni     node1 leads (PostgreSQL 127.0.0.1:5451, REST 8008)"
# The stanza once, on the leader; the archive_command failed until then (PostgreSQL kept the
# segments and retries them).
backrest node1 stanza-create >"$TOPOLOGY_DIR/pgbackrest/stanza-create.log" 2>&1 ||
  { cat "$TOPOLOGY_DIR/pgbackrest/stanza-create.log" >&2; exit 1; }
start_node node2
# /sync answers 200 on the member named in synchronous_standby_names.
wait_for 120 "node2 to be the synchronous standby" http_ok http://127.0.0.1:8009/sync
echo "patroni     node2 is the synchronous standby (PostgreSQL 127.0.0.1:5452, REST 8009)"
# pgBackRest's check switches to a new WAL segment and waits (at most 60 s, archive-timeout) until
# it is in the repository: archiving works.
backrest node1 check >"$TOPOLOGY_DIR/pgbackrest/check.log" 2>&1 || { cat "$TOPOLOGY_DIR/pgbackrest/check.log" >&2; exit 1; }
echo "pgbackrest  stanza chipin, WAL archived to $TOPOLOGY_DIR/pgbackrest/repo (no backup yet)"

# HAProxy: the reference file with its admin socket under the topology, twice: the second one's
# ports on 127.0.0.2 (another machine's address), its socket and pid file its own (start_haproxy, lib.sh).
start_haproxy 1
start_haproxy 2
pg_leader() { "$PG_BIN/psql" -h 127.0.0.1 -p 5000 -U postgres -d postgres -XAtqc "$1"; }
# HAProxy starts with every server up until its checks say otherwise: wait until three
# connections in a row reach a primary (not in recovery) before writing.
on_leader_thrice() { for _ in 1 2 3; do [ "$(pg_leader 'SELECT pg_is_in_recovery()')" = f ] || return 1; done; }
wait_for 30 "HAProxy's primary port to reach the leader only" on_leader_thrice
pg_leader 'CREATE DATABASE chipin'
echo "haproxy     5000 -> leader, 5001 -> the standby, 7000 -> Chipin; on 127.0.0.1 and on 127.0.0.2"

# PgBouncer: the reference file in front of HAProxy's leader port, its paths under the topology
# and loopback trust instead of scram (a demo; docs/deployment.md#pgbouncer), twice: the second
# listens on 127.0.0.2 in front of the second HAProxy (start_pgbouncer, lib.sh). It drops to the
# postgres user when started as root.
printf '"postgres" ""\n' > "$TOPOLOGY_DIR/userlist.txt"
chmod 644 "$TOPOLOGY_DIR/userlist.txt"
for i in 1 2; do
  start_pgbouncer "$i"
  wait_for 30 "PgBouncer on 127.0.0.$i:6432" bouncer_ok "$i"
done
echo "pgbouncer   127.0.0.1:6432 -> 127.0.0.1:5000, 127.0.0.2:6432 -> 127.0.0.2:5000, transaction mode"

# Chipin: 3 processes, one master key, the database through either PgBouncer (LISTEN through either
# HAProxy's primary port: a transaction pool cannot hold it), the back office's heavy reads on the
# standby through either HAProxy's port 5001 (DATABASE_READ_URL: chipin_settings, lib.sh).
openssl rand -hex 32 > "$TOPOLOGY_DIR/master.key"
chmod 600 "$TOPOLOGY_DIR/master.key"
chipin_settings
# The processes run the bundle, as production does (docs/deployment.md#the-bundle).
(cd "$REPO" && npm run build --silent)
for i in 1 2 3; do
  start_chipin "$i"
  # The first applies the migrations; the others start once it has.
  [ "$i" = 1 ] && wait_for 120 "chipin1 to be ready" http_ok http://127.0.0.1:3101/readyz
done
for i in 2 3; do wait_for 120 "chipin$i to be ready" http_ok "http://127.0.0.1:310$i/readyz"; done
wait_for 30 "HAProxy's Chipin port" http_ok http://127.0.0.1:7000/readyz
echo "chipin      3101, 3102, 3103 ready, behind 127.0.0.1:7000; /metrics on 127.0.0.1:9101-9103"

env "${chipin_env[@]}" DATA_DIR="$TOPOLOGY_DIR/chipin1" node --import tsx src/main.ts merchant create \
  --name 'Failover Drill' --email drill@chipin.test --json > "$TOPOLOGY_DIR/merchant.json"
chmod 600 "$TOPOLOGY_DIR/merchant.json"
# The drill's webhook receiver listens on 5459 while it runs (deploy/topology/failover-drill.ts).
account=$(node -p "require('$TOPOLOGY_DIR/merchant.json').account_id")
env "${chipin_env[@]}" DATA_DIR="$TOPOLOGY_DIR/chipin1" node --import tsx src/main.ts webhook set \
  --account "$account" --url http://127.0.0.1:5459/webhooks --json > "$TOPOLOGY_DIR/webhook.json"
chmod 600 "$TOPOLOGY_DIR/webhook.json"
echo "merchant    credentials in $TOPOLOGY_DIR/merchant.json, webhooks to 127.0.0.1:5459"
echo "== up: patronictl -c $TOPOLOGY_DIR/node1.yml list; deploy/topology/down.sh to stop"
