#!/usr/bin/env bash
# Full re-screen of a bank-scale watchlist in claimed chunks on PostgreSQL, with the real
# binary (release build):
#   1. the eight lists imported (../shared/data/lists);
#   2. `watchlist import` of N synthetic customers (scripts/gen_watchlist.py);
#   3. `watchlist rescreen` by one process: names/s;
#   4. `watchlist rescreen` by two processes at once (they join one run and share its
#      chunks): names/s of the run and per process, and the chunks each one committed.
#
#   scripts/rescreen_bench.sh [N]                  default 200000
#
# PG_URL (default postgres://postgres@127.0.0.1:5432/test): a schema `rescreen_bench_<time>`
# is made there and dropped at the end (KEEP=1 keeps it). SANCTIONS_BIN=PATH skips the
# build. SANCTIONS_RESCREEN_CHUNK and SANCTIONS_RESCREEN_LEASE_SECS pass to the processes.
# Needs psql, python3 and GNU time.
set -euo pipefail

n=${1:-200000}
pg_url=${PG_URL:-postgres://postgres@127.0.0.1:5432/test}
here=$(cd "$(dirname "$0")" && pwd)
shared=$here/../../shared/data
cd "$here/.."
if [ -n "${SANCTIONS_BIN:-}" ]; then
    bin=$SANCTIONS_BIN
else
    cargo build --release --quiet --bin sanctions
    bin=${CARGO_TARGET_DIR:-target}/release/sanctions
fi
work=$(mktemp -d)
schema="rescreen_bench_$(date +%s)"
cleanup() {
    [ -n "${KEEP:-}" ] || psql -q "$pg_url" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
psql -q "$pg_url" -c "CREATE SCHEMA $schema" >/dev/null
sep='?'; case "$pg_url" in *\?*) sep='&' ;; esac
export SANCTIONS_DATABASE_URL="$pg_url${sep}options=-csearch_path%3D$schema"
q() { psql -qAt "$SANCTIONS_DATABASE_URL" -c "$1"; }
echo "== machine: $(nproc) CPUs; $(uptime); $("$bin" --version)"
mkdir -p "$work/data"
"$bin" --data-dir "$work/data" lists import "$shared/lists" >/dev/null
python3 "$here/gen_watchlist.py" "$n" >"$work/customers.csv"
/usr/bin/time -f "import: %e s wall, %U s user, %S s system" \
    "$bin" --data-dir "$work/data" watchlist import "$work/customers.csv" 2>&1 >/dev/null |
    grep -v '^warning:' || true
favorites=$(q "SELECT count(*) FROM favorites")
echo "== $favorites favorites"

rate() { python3 -c "import sys; n, s = float(sys.argv[1]), float(sys.argv[2]); print(f'{n / s:,.0f}')" "$@"; }
run_report() {
    q "SELECT 'run ' || r.id || ': ' || r.chunks || ' chunks, ' || sum(c.screened) || ' screened, '
           || sum(c.changed) || ' changed, ' || sum(c.alerts) || ' alerts, '
           || sum(c.claims - 1) || ' chunks claimed again'
       FROM rescreen_chunk_runs r JOIN rescreen_chunks c ON c.run_id = r.id
       WHERE r.id = (SELECT max(id) FROM rescreen_chunk_runs) GROUP BY r.id, r.chunks"
    q "SELECT '  holder ' || split_part(holder, '-', 1) || ': ' || count(*) || ' chunks, '
           || sum(screened) || ' names'
       FROM rescreen_chunks WHERE run_id = (SELECT max(id) FROM rescreen_chunk_runs)
       GROUP BY holder ORDER BY holder"
}

echo "== one process"
start=$(date +%s.%N)
/usr/bin/time -f "  %e s wall, %U s user, %S s system, peak RSS %M KiB" \
    "$bin" --data-dir "$work/data" watchlist rescreen 2>&1 | grep -v '^warning:' || true
one=$(python3 -c "import time, sys; print(time.time() - float(sys.argv[1]))" "$start")
echo "  $(rate "$favorites" "$one") names/s"
run_report

echo "== two processes at once"
start=$(date +%s.%N)
for i in 1 2; do
    /usr/bin/time -f "  process $i: %e s wall, %U s user, %S s system, peak RSS %M KiB" \
        "$bin" --data-dir "$work/data" watchlist rescreen >"$work/two.$i" 2>&1 &
done
wait
two=$(python3 -c "import time, sys; print(time.time() - float(sys.argv[1]))" "$start")
grep -h 'process' "$work"/two.* || true
echo "  run: $(rate "$favorites" "$two") names/s; per process: $(rate "$favorites" "$(python3 -c "print($two * 2)")") names/s"
run_report
echo "== load after: $(uptime)"
