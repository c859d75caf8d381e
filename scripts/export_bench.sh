#!/usr/bin/env bash
# The streamed audit export at scale (issue 26): stores COUNT synthetic screenings in a new
# key's account of a fresh data folder, then exports them all through a real `sanctions
# serve` (GET /api/v1/audit?format=ndjson, read by curl and counted, not kept), sampling the server's
# RSS every 0.2 s: prints the lines and bytes received, the time and the peak RSS.
#
#   scripts/export_bench.sh [COUNT] [FORMAT]      default 2000000 screenings, ndjson (or csv)
#
# Release build unless SANCTIONS_BIN (the binary) and FILL_BIN (the fill_screenings
# example) are given. Loopback only; the data folder is a temp folder, removed at the end.
set -euo pipefail

count=${1:-2000000}
format=${2:-ndjson}
port=${PORT:-18090}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "${SANCTIONS_BIN:-}" ] || [ -z "${FILL_BIN:-}" ]; then
    cargo build --release --quiet --bin sanctions --example fill_screenings
    SANCTIONS_BIN=${CARGO_TARGET_DIR:-target}/release/sanctions
    FILL_BIN=${CARGO_TARGET_DIR:-target}/release/examples/fill_screenings
fi
work=$(mktemp -d)
server=
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
data="$work/data"
mkdir -m 700 "$data"
created=$("$SANCTIONS_BIN" --data-dir "$data" keys create --plan business --label export-bench --json)
key=$(sed -n 's/.*"key": "\(sk_live_[A-Za-z0-9]*\)".*/\1/p' <<<"$created")
account=$(sed -n 's/.*"account_id": "\(acct_[A-Za-z0-9]*\)".*/\1/p' <<<"$created")
echo "== storing $count screenings in $account"
"$FILL_BIN" "$data" "$account" "$count"
printf '[briefs]\nfeeds = []\n' >"$work/config.toml"
"$SANCTIONS_BIN" --data-dir "$data" --config "$work/config.toml" serve --bind "127.0.0.1:$port" >"$work/serve.out" &
server=$!
for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
rss_start=$(ps -o rss= -p "$server")
peak=$rss_start
(
    while kill -0 "$server" 2>/dev/null; do
        ps -o rss= -p "$server" || true
        sleep 0.2
    done
) >"$work/rss" &
sampler=$!
echo "== exporting as $format"
start=$(date +%s.%N)
read -r lines bytes < <(curl -fsS -H "Authorization: Bearer $key" \
    "http://127.0.0.1:$port/api/v1/audit?format=$format" | wc -lc)
end=$(date +%s.%N)
kill "$sampler" 2>/dev/null || true
while read -r rss; do
    [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
done <"$work/rss"
echo "lines:    $lines"
echo "bytes:    $bytes"
echo "seconds:  $(echo "$end - $start" | bc)"
echo "RSS:      start $((rss_start / 1024)) MB, peak $((peak / 1024)) MB"
