#!/usr/bin/env bash
# Load test of `sanctions serve` (release build) with wrk: single-name screenings
# (POST /api/v1/screen) at 64 connections, then the time of a 500-name batch.
#
#   scripts/load.sh DATA_DIR [DURATION]      e.g. scripts/load.sh ~/.local/share/sanctions 30s
#
# DATA_DIR must already hold imported lists (`sanctions lists import`); nothing is imported.
# A Business key is created in it, and the server runs with a config that lifts the plan's
# request rate so that the load generator, not the plan, is the limit. Needs wrk (Debian:
# apt-get install wrk) and curl. Measure on a quiet machine. SANCTIONS_BIN=PATH skips the
# build and uses that binary.
set -euo pipefail

data_dir=${1:?usage: scripts/load.sh DATA_DIR [DURATION]}
duration=${2:-30s}
port=${PORT:-18080}
. "$(dirname "$0")/serve_for_test.sh"
wrk_setup "$data_dir"

work=$(mktemp -d)
server=
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
serve_for_test "$bin" "$data_dir" "$port" load-test $'[server]\nmax_in_flight = 1024\n[briefs]\nfeeds = []'
rss_start=$(ps -o rss= -p "$server")

cat >"$work/screen.lua" <<LUA
local names = {"Vladimir Putin", "Bank Rossiya", "Acme Trading Ltd", "Kim Jong Un",
  "John Smith", "Rosneft", "Ali Hassan", "Maria Garcia", "Sberbank", "Li Wei"}
local i = 0
request = function()
  i = i + 1
  local body = '{"name":"' .. names[(i % #names) + 1] .. '"}'
  return wrk.format("POST", "/api/v1/screen",
    {["Content-Type"] = "application/json", ["Authorization"] = "Bearer $key"}, body)
end
done = function(summary, latency, requests)
  io.write(string.format("non-2xx or errors: %d\n",
    summary.errors.status + summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout))
end
LUA

echo "== single-name screenings: $connections connections, $threads threads, $duration"
wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/screen.lua" "$base"

echo "== 500-name batch (5 runs, seconds)"
python3 -c 'import json; print(json.dumps({"names": ["Batch Person %d Example" % i for i in range(500)]}))' >"$work/batch.json"
for _ in 1 2 3 4 5; do
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -X POST "$base/api/v1/screen/batch" \
        -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
        --data-binary "@$work/batch.json"
done
rss_end=$(ps -o rss= -p "$server")
echo "== server RSS: ${rss_start} KiB at start, ${rss_end} KiB at end"
kill -TERM "$server"
wait "$server" || true
