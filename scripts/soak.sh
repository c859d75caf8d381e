#!/usr/bin/env bash
# Soak test of `sanctions serve` (release build): single-name screenings (POST
# /api/v1/screen, each one stored) at a fixed rate for a long time, with wrk paced by a Lua
# clock (serve_for_test.sh's screen_lua), reporting the rate reached, the latency, every
# error, and the server's RSS at the start, every minute and at the end (memory should stay
# flat) with the sizes of the WAL and the database.
#
#   scripts/soak.sh DATA_DIR [DURATION] [RATE]   default 10m at 3000 requests/s
#   scripts/soak.sh --short DATA_DIR             2 minutes, to check the script itself
#
# DATA_DIR must already hold imported lists (`sanctions lists import`); nothing is imported,
# but every request stores a screening there (3,000/s for 10 minutes is 1.8 million
# screenings of about 1.5 KB each, some 3 GB: use a copy of a data folder, and delete it
# afterwards). A Business key is created in it and the server runs with a config that
# lifts the plan's rate. Needs wrk (Debian: apt-get
# install wrk; its LuaJIT paces the requests) and curl. SANCTIONS_BIN=PATH skips the build.
# Exit status 1 when any request failed or the server died. Not run by the tests or CI.
set -euo pipefail

duration=10m
if [ "${1:-}" = "--short" ]; then
    shift
    duration=2m
fi
data_dir=${1:?usage: scripts/soak.sh [--short] DATA_DIR [DURATION] [RATE]}
duration=${2:-$duration}
rate=${3:-3000}
port=${PORT:-18081}
. "$(dirname "$0")/serve_for_test.sh"
wrk_setup "$data_dir"

work=$(mktemp -d)
server=
sampler=
trap 'kill "$sampler" 2>/dev/null || true; kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
serve_for_test "$bin" "$data_dir" "$port" soak-test $'[server]\nmax_in_flight = 1024\n[briefs]\nfeeds = []'
rss() { ps -o rss= -p "$server" | tr -d ' '; }
# The WAL's file should stay bounded (the server's checkpointer starts it again past
# about 128 MiB); the database grows by every screening stored.
sizes() {
    local wal db
    wal=$(stat -c %s "$data_dir/sanctions.db-wal" 2>/dev/null || echo 0)
    db=$(stat -c %s "$data_dir/sanctions.db" 2>/dev/null || echo 0)
    echo "WAL $((wal / 1048576)) MiB, database $((db / 1048576)) MiB"
}
rss_start=$(rss)
log_start=$(wc -l <"$data_dir/sanctions.log" 2>/dev/null || echo 0)
(
    while sleep 60; do
        echo "$(date -u +%H:%M:%S) RSS $(rss) KiB; $(sizes)"
    done
) &
sampler=$!

screen_lua "$key" "$threads" "$rate" >"$work/soak.lua"

echo "== soak: $rate requests/s of single-name screenings, $connections connections, $duration"
echo "$(date -u +%H:%M:%S) RSS $rss_start KiB (start)"
wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/soak.lua" "$base" | tee "$work/wrk.out"
kill "$sampler" 2>/dev/null || true
alive=yes
kill -0 "$server" 2>/dev/null || alive=no
rss_end=$( [ "$alive" = yes ] && rss || echo "-")
echo "== server RSS: $rss_start KiB at start, $rss_end KiB at end; server alive: $alive; $(sizes)"
log_errors=$(tail -n +"$((log_start + 1))" "$data_dir/sanctions.log" 2>/dev/null | grep ' ERROR ' | grep -vc 'path=/readyz' || true)
echo "== ERROR lines the server logged during the soak: ${log_errors:-0}"
failed=$(sed -n 's/^errors: \([0-9]*\).*/\1/p' "$work/wrk.out")
[ "$alive" = yes ] && kill -TERM "$server" && wait "$server" || true
server=
[ "$alive" = yes ] && [ "${failed:-1}" = 0 ]
