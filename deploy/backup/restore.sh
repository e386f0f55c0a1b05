#!/bin/sh
# A point-in-time restore of Chipin's database (docs/deployment.md, "Backup and restore"), run as
# postgres:
#   restore.sh /var/backups/chipin/base-20261125T0600Z /var/lib/postgresql/15/restored \
#              /var/lib/postgresql/wal-archive '2026-11-25 06:30:00+00'
# Copies a base backup into a new data directory and sets it to replay the archived WAL up to the
# target time (every transaction committed at or before it, none after), then to open for writes
# on a new timeline. It does not start the server: start it on its own port
# (pg_ctl -D <data> -o '-p 5433' start), check it, then point Chipin at it. The settings are those
# of deploy/backup/recovery-target.conf; they stay in postgresql.auto.conf after the recovery and
# do nothing once recovery.signal is gone (PostgreSQL removes it when it promotes).
set -eu
backup=$1 # a base backup taken by base-backup.sh, older than the target
data=$2 # the new data directory: must not exist
archive=$3 # the WAL archive folder that archive-wal.sh fills
target=$4 # recovery_target_time, with its time zone
[ ! -e "$data" ] || { echo "restore: $data exists: restore into a new directory" >&2; exit 1; }
cp -a "$backup" "$data"
chmod 700 "$data"
# The copy of a backup's manifest is not part of a data directory.
rm -f "$data/backup_manifest"
cat >> "$data/postgresql.auto.conf" <<CONF
# point-in-time restore by deploy/backup/restore.sh, $(date -u +%FT%TZ)
restore_command = 'cp $archive/%f %p'
recovery_target_time = '$target'
recovery_target_action = 'promote'
archive_mode = off
CONF
touch "$data/recovery.signal"
echo "restored $backup into $data; recovery to $target starts when the server starts"
