#!/usr/bin/env bash
# Side-by-side figures of the incremental re-screen after a list update, for builds of the
# program (issue 25): each run copies a data folder holding a watchlist and an older list
# edition, runs `lists import LISTS` with one build, and prints the phases the log records
# (watchlist read, selection with its counts, re-screen) and an md5 of the favorites' matches
# afterwards, which must be the same for every build.
#
#   scripts/update_ab.sh DATA_DIR RUNS LISTS BIN_A BIN_B [...]
#
# DATA_DIR is left untouched (copied to a temporary folder per run); the builds alternate.
set -euo pipefail
src=$1 runs=$2 lists=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for _ in $(seq "$runs"); do
  for bin in "$@"; do
    rm -rf "$work/d" && cp -r "$src" "$work/d"
    start=$(date +%s.%N)
    "$bin" --data-dir "$work/d" lists import "$lists" >/dev/null 2>&1
    end=$(date +%s.%N)
    log="$work/d/sanctions.log"
    read=$(grep "watchlist read for" "$log" | tail -1 | grep -o "millis=[0-9]*")
    selected=$(grep "favorites selected" "$log" | tail -1 | grep -o "selected=[0-9]* .*millis=[0-9]*" || true)
    screened=$(grep "favorites re-screened" "$log" | tail -1 | grep -o " millis=[0-9]*")
    # Read + selection + re-screen (logged since 2026-11-29; the read overlaps the selection).
    whole=$(grep "favorites re-screened" "$log" | tail -1 | grep -o "since_read_millis=[0-9]*" || true)
    md5=$(sqlite3 "$work/d/sanctions.db" "SELECT f.name, m.entity_id FROM favorite_matches m
      JOIN favorites f ON f.id = m.favorite_id ORDER BY 1,2" | md5sum | cut -c1-8)
    echo "$bin wall=$(echo "$end - $start" | bc) s; read $read; selection $selected; re-screen$screened; $whole; matches $md5"
  done
done
