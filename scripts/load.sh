#!/usr/bin/env bash
# Load test of `sanctions serve` (release build) with wrk: single-name screenings
# (POST /api/v1/screen, each one stored) at 64 connections, first paced at RATE requests/s
# (the latency at the goal's rate), then saturated (wrk's closed loop: the most requests/s),
# then the time of a 500-name batch.
#
#   scripts/load.sh DATA_DIR [DURATION] [RATE]   default 30s per phase at 3000 requests/s
#                                                e.g. scripts/load.sh /tmp/d 20s
#
# DATA_DIR must already hold imported lists (`sanctions lists import`); nothing is imported.
# A Business key is created in it, and the server runs with a config that lifts the plan's
# request rate so that the load generator, not the plan, is the limit. Needs wrk (Debian:
# apt-get install wrk; its LuaJIT paces the requests) and curl. Measure on a quiet machine.
# SANCTIONS_BIN=PATH skips the build and uses that binary. TLS=1 serves HTTPS (built-in
# rustls, a self-signed certificate made here with openssl; wrk negotiates HTTP/1.1).
set -euo pipefail

data_dir=${1:?usage: scripts/load.sh DATA_DIR [DURATION] [RATE]}
duration=${2:-30s}
rate=${3:-3000}
port=${PORT:-18080}
. "$(dirname "$0")/serve_for_test.sh"
wrk_setup "$data_dir"

work=$(mktemp -d)
server=
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
tls_args=()
if [ -n "${TLS:-}" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
        -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
    tls_args=(--tls-cert "$work/cert.pem" --tls-key "$work/key.pem")
fi
serve_for_test "$bin" "$data_dir" "$port" load-test $'[server]\nmax_in_flight = 1024\n[briefs]\nfeeds = []' "${tls_args[@]}"
rss_start=$(ps -o rss= -p "$server")

screen_lua "$key" "$threads" "$rate" >"$work/paced.lua"
screen_lua "$key" "$threads" >"$work/saturated.lua"

# At the goal's rate first: the latency a client sees at 3,000 requests/s. Then as fast as
# wrk's connections are answered: the throughput's ceiling, where the latency is only
# connections / throughput (Little's law), so its percentiles say little about the goal.
echo "== paced: $rate requests/s of single-name screenings, $connections connections, $threads threads, $duration"
wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/paced.lua" "$base"

echo "== saturated (closed loop): single-name screenings, $connections connections, $threads threads, $duration"
wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/saturated.lua" "$base"

echo "== 500-name batch (5 runs, seconds)"
python3 -c 'import json; print(json.dumps({"names": ["Batch Person %d Example" % i for i in range(500)]}))' >"$work/batch.json"
for _ in 1 2 3 4 5; do
    curl -ks -o /dev/null -w '%{http_code} %{time_total}\n' -X POST "$base/api/v1/screen/batch" \
        -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
        --data-binary "@$work/batch.json"
done
rss_end=$(ps -o rss= -p "$server")
echo "== server RSS: ${rss_start} KiB at start, ${rss_end} KiB at end"
kill -TERM "$server"
wait "$server" || true
