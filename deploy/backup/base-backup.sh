#!/bin/sh
# A base backup of Chipin's primary (docs/deployment.md, "Backup and restore"), run as postgres:
#   base-backup.sh 'host=primary port=5432 user=postgres' /var/backups/chipin/base-$(date -u +%Y%m%dT%H%MZ)
# pg_basebackup copies the running cluster without stopping it; -X stream also copies the WAL
# written during the copy, so the backup is consistent by itself (the archive then carries it
# forward to any later time). -c fast starts at once instead of at the next checkpoint.
# pg_verifybackup then checks every file against the backup's manifest: a backup never verified
# is not a backup. Keep at least the last two base backups and every archived segment since the
# older one (pg_archivecleanup <archive> <oldest kept backup's first segment> removes the rest).
set -eu
conn=$1 # libpq connection string of the primary (a replication-capable user)
dest=$2 # a folder that does not exist yet
pg=${PG_BIN:-/usr/lib/postgresql/15/bin}
"$pg/pg_basebackup" -d "$conn" -D "$dest" -F plain -X stream -c fast --label "chipin $(date -u +%FT%TZ)"
"$pg/pg_verifybackup" -q "$dest"
echo "base backup in $dest, verified ($(du -sh "$dest" | cut -f1))"
