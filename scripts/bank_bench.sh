#!/usr/bin/env bash
# Bank-scale watchlist on PostgreSQL, with the real binary (release build):
#   1. the eight lists imported, OFAC SDN at its older edition (../shared/data/editions);
#   2. `watchlist import` of N synthetic customers (scripts/gen_watchlist.py): names/s, the
#      process's peak RSS (/usr/bin/time) and the database's growth;
#   3. the current OFAC SDN imported: the watchlist monitored after the update (incremental
#      re-screen from N >= 5,000), its time and what it found.
#
#   scripts/bank_bench.sh [N]                  default 1000000
#
# PG_URL (default postgres://postgres@127.0.0.1:5432/test): a schema `bank_bench_<time>` is
# made there and dropped at the end (KEEP=1 keeps it). SANCTIONS_BIN=PATH skips the build.
# CUSTOMERS=FILE imports that file instead of generating N customers. Steps 1-2 alone:
# STEPS=import (keeps the schema and names it); step 3 alone on a kept schema:
# STEPS=update SCHEMA=bank_bench_... (run it again with a fresh schema to repeat it).
# The log (`sanctions.log` in the data folder) gives the incremental run's parts: the
# watchlist's token index built or brought up to date, the favorites selected.
# Needs psql, python3 and GNU time.
set -euo pipefail

n=${1:-1000000}
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
steps=${STEPS:-all}
schema=${SCHEMA:-"bank_bench_$(date +%s)"}
[ "$steps" = all ] || KEEP=1
cleanup() {
    [ -n "${KEEP:-}" ] || psql -q "$pg_url" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
[ "$steps" = update ] || psql -q "$pg_url" -c "CREATE SCHEMA $schema" >/dev/null
echo "== schema $schema"
sep='?'; case "$pg_url" in *\?*) sep='&' ;; esac
export SANCTIONS_DATABASE_URL="$pg_url${sep}options=-csearch_path%3D$schema"
size() {
    psql -qAt "$pg_url" -c "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '$schema' AND c.relkind = 'r'"
}
echo "== machine: $(nproc) CPUs; $(uptime); $("$bin" --version)"

mkdir -p "$work/old" "$work/data"
if [ "$steps" != update ]; then
for list in "$shared"/lists/*; do
    ln -s "$list" "$work/old/$(basename "$list")"
done
rm "$work/old/ofac_sdn"
ln -s "$shared/editions/ofac_sdn/consistent_2023-12-28" "$work/old/ofac_sdn"
"$bin" --data-dir "$work/data" lists import "$work/old" >/dev/null
echo "== lists imported (OFAC SDN 2023-12-28): database $(size)"

customers=${CUSTOMERS:-$work/customers.csv}
if [ -z "${CUSTOMERS:-}" ]; then
    python3 "$here/gen_watchlist.py" "$n" >"$customers"
    echo "== $n customers generated: $(du -h "$customers" | cut -f1)"
fi
before=$(size)
/usr/bin/time -f 'time: %e s wall, %U s user, %S s system, peak RSS %M KiB' \
    "$bin" --data-dir "$work/data" watchlist import "$customers" 2>&1 | grep -v '^warning:' || true
echo "== database $before -> $(size); favorites: $(psql -qAt "$pg_url" -c "SELECT count(*) FROM $schema.favorites")"
fi
[ "$steps" != import ] || exit 0

echo "== the current OFAC SDN imported, the watchlist monitored"
/usr/bin/time -f 'time: %e s wall, %U s user, %S s system, peak RSS %M KiB' \
    "$bin" --data-dir "$work/data" lists import "$shared/lists" 2>&1 | grep -E 'ofac_sdn|watchlist|time:'
psql -qAt "$pg_url" -c "SELECT 'run: ' || mode || ', ' || screened || ' screened, ' || changed || ' changed, ' || alerts || ' alerts'
    FROM $schema.rescreen_runs ORDER BY id DESC LIMIT 1"
grep -hE 'token index|weight drift|favorites selected|re-screen' "$work"/data/*.log 2>/dev/null | tail -6 || true
echo "== load after: $(uptime)"
