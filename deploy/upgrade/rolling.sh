#!/usr/bin/env bash
# The rolling-upgrade drill (docs/deployment.md, "Rolling upgrade"): version N and this checkout
# (N+1) on one PostgreSQL database, N started first, N+1's `chipin migrate` under N's load, both
# serving together, then N stopped; every acknowledged purchase must still be there.
#
#   npm run drill:upgrade [-- <commit of N>]
#
# N defaults to the parent of the last commit that changed src/db/migrations, so that N+1 has at
# least one migration N does not know. The database is a new one on UPGRADE_DATABASE_URL's server
# (default: the local postgres://postgres@127.0.0.1:5432/postgres), named chipin_upgrade_<random>,
# dropped at the end with N's temporary worktree, whatever the outcome. Exit status 0 means PASS.
set -euo pipefail

ROOT=$(git rev-parse --show-toplevel)
cd "$ROOT"
ADMIN_URL=${UPGRADE_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}

if [ $# -ge 1 ]; then
  OLD=$(git rev-parse --verify "$1^{commit}")
else
  LAST=$(git log -1 --format=%H -- src/db/migrations)
  OLD=$(git rev-parse --verify "$LAST^")
fi
NEW=$(git rev-parse HEAD)
[ -n "$(git status --porcelain -- src)" ] && NEW="$NEW+uncommitted"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/chipin-upgrade.XXXXXX")
DB="chipin_upgrade_$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
DB_URL="${ADMIN_URL%/*}/$DB"

cleanup() {
  git worktree remove --force "$WORK/old" >/dev/null 2>&1 || true
  psql -q "$ADMIN_URL" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || echo "could not drop database $DB" >&2
  rm -rf "$WORK"
}
trap cleanup EXIT

git worktree add --detach "$WORK/old" "$OLD" >/dev/null 2>&1
# N runs with this checkout's dependencies: the drill is for neighbouring releases.
ln -s "$(realpath "$ROOT/node_modules")" "$WORK/old/node_modules"
psql -q "$ADMIN_URL" -c "CREATE DATABASE $DB" >/dev/null

OLD_DIR="$WORK/old" NEW_DIR="$ROOT" OLD_COMMIT="$OLD" NEW_COMMIT="$NEW" DRILL_DATABASE_URL="$DB_URL" DRILL_WORK="$WORK" \
  node --import tsx deploy/upgrade/drill.ts
