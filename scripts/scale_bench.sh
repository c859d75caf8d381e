#!/usr/bin/env bash
# Stored screenings (POST /api/v1/screen: each answer is stored, as a payment system's calls
# are) at saturation with wrk, on three set-ups of the release build:
#   1. one `serve` on SQLite (a data folder with the lists imported),
#   2. one `serve` on PostgreSQL (a fresh schema with the same lists),
#   3. two `serve` instances on that same schema, each loaded by its own wrk with half the
#      connections (what a load balancer spreading evenly gives; the rates add up, the p99
#      reported is the worse of the two).
# Each prints requests/s, p50/p99 and errors; then the rows stored and the database's size.
#
#   scripts/scale_bench.sh [DURATION]          default 20s per set-up
#
# Reuses load.sh's helpers (scripts/serve_for_test.sh: the key, the lifted plan, the wrk Lua
# script). Needs wrk, curl and psql. PG_URL (default postgres://postgres@127.0.0.1:5432/test)
# is the server; a schema `scale_bench_<time>` is made there and dropped at the end.
# LISTS (default ../shared/data/lists) are the lists imported. SANCTIONS_BIN=PATH skips the
# build. CONNECTIONS (64) and THREADS (2) as for load.sh. Prints the machine's state first:
# the figures mean little without it.
set -euo pipefail

duration=${1:-20s}
pg_url=${PG_URL:-postgres://postgres@127.0.0.1:5432/test}
here=$(cd "$(dirname "$0")" && pwd)
lists=${LISTS:-$here/../../shared/data/lists}
. "$here/serve_for_test.sh"
connections=${CONNECTIONS:-64}
threads=${THREADS:-2}
cd "$here/.."
for tool in wrk curl psql; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 2; }
done
[ -d "$lists" ] || { echo "no lists at $lists (set LISTS)" >&2; exit 2; }
if [ -n "${SANCTIONS_BIN:-}" ]; then
    bin=$SANCTIONS_BIN
else
    cargo build --release --quiet --bin sanctions
    bin=${CARGO_TARGET_DIR:-target}/release/sanctions
fi

work=$(mktemp -d)
schema="scale_bench_$(date +%s)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    psql -q "$pg_url" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
config=$'[server]\nmax_in_flight = 1024\n[briefs]\nfeeds = []'

echo "== machine: $(nproc) CPUs, $(free -g | awk '/Mem:/ {print $2}') GiB; $(uptime)"
echo "== binary: $("$bin" --version)"

# wrk against BASE with CONNS connections; prints its summary lines to FILE and the screen.
load() {
    local base=$1 conns=$2 out=$3
    screen_lua "$key" "$threads" >"$out.lua"
    wrk -t"$threads" -c"$conns" -d"$duration" --latency -s "$out.lua" "$base" >"$out"
    grep -E '^ +(50|99)%|^requests:|^errors:' "$out" | sed 's/^/   /'
}

# Starts one instance on DATA_DIR (a port of its own), recording its pid.
start() {
    serve_for_test "$bin" "$1" 0 "scale-bench-$2" "$config"
    pids+=("$server")
}

echo "== 1. one instance, SQLite, $connections connections, $duration"
mkdir -p "$work/sqlite"
"$bin" --data-dir "$work/sqlite" lists import "$lists" >/dev/null
start "$work/sqlite" sqlite
load "$base" "$connections" "$work/sqlite.wrk"
echo "   database: $(du -h "$work/sqlite/sanctions.db" | cut -f1) (with its WAL: $(du -ch "$work"/sqlite/sanctions.db* | tail -1 | cut -f1))"
kill "$server"; wait "$server" 2>/dev/null || true

echo "== 2. one instance, PostgreSQL ($schema), $connections connections, $duration"
psql -q "$pg_url" -c "CREATE SCHEMA $schema" >/dev/null
sep='?'; case "$pg_url" in *\?*) sep='&' ;; esac
export SANCTIONS_DATABASE_URL="$pg_url${sep}options=-csearch_path%3D$schema"
mkdir -p "$work/pg1" "$work/pg2"
"$bin" --data-dir "$work/pg1" lists import "$lists" >/dev/null
start "$work/pg1" pg1
first_base=$base first_key=$key first=$server
load "$base" "$connections" "$work/pg1.wrk"

echo "== 3. two instances, PostgreSQL ($schema), $((connections / 2)) connections each, $duration"
start "$work/pg2" pg2
second_base=$base second_key=$key
key=$first_key load "$first_base" $((connections / 2)) "$work/pg-a.wrk" &
a=$!
key=$second_key load "$second_base" $((connections / 2)) "$work/pg-b.wrk" &
b=$!
wait "$a" "$b"
awk '/^requests:/ {gsub("/s", "", $4); rate += $4} END {printf "   together: %.0f requests/s\n", rate}' \
    "$work/pg-a.wrk" "$work/pg-b.wrk"
psql -qAt "$pg_url" -c "SELECT 'stored screenings: ' || count(*) FROM $schema.screenings" | sed 's/^/   /'
psql -qAt "$pg_url" -c "SELECT 'schema size: ' || pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '$schema' AND c.relkind = 'r'" | sed 's/^/   /'
echo "== load after: $(uptime)"
