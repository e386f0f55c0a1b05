#!/bin/sh
# PostgreSQL's archive_command for Chipin (docs/deployment.md, "Backup and restore"):
#   archive_command = '/usr/local/lib/chipin/archive-wal.sh %p %f /var/lib/postgresql/wal-archive'
# Copies one finished WAL segment (or a .history/.backup file) into the archive folder, durably:
# PostgreSQL recycles the segment as soon as this exits 0, so the copy must be on disk first
# (sync of the file, then of the folder after the rename). It never overwrites a different file
# of the same name (another cluster archiving into the same folder would destroy the archive's
# history); the same file again exits 0, since PostgreSQL retries a segment whose archiving was
# cut short by a crash after the copy. Any failure exits non-zero: PostgreSQL keeps the segment
# in pg_wal and retries (pg_stat_archiver.failed_count counts the attempts; watch it).
set -eu
src=$1 # %p: the segment's path, relative to the data directory (the command runs there)
name=$2 # %f: its file name
dir=$3 # the archive folder, owned by postgres; on another disk, or copied off the machine
dest="$dir/$name"
if [ -e "$dest" ]; then
  if cmp -s "$src" "$dest"; then exit 0; fi
  echo "archive-wal: $dest exists and differs from $src: refusing to overwrite" >&2
  exit 1
fi
cp "$src" "$dest.part"
sync "$dest.part"
mv "$dest.part" "$dest"
sync "$dir"
