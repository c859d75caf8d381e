# Sourced by load.sh, soak.sh and schemathesis.sh: starts `sanctions serve` on an existing
# data folder with a Business key whose plan's rate is lifted, and waits until it is ready.
#
#   wrk_setup DATA_DIR       (load.sh, soak.sh) checks wrk and the data folder, sets
#                            `data_dir` (its absolute path), `connections` ($CONNECTIONS or
#                            64) and `threads` ($THREADS or 2), changes to the checkout's
#                            root and sets `bin` ($SANCTIONS_BIN, or a release build of it)
#
#   serve_for_test BIN DATA_DIR PORT LABEL EXTRA_CONFIG [SERVE_ARGS...]
#
# SERVE_ARGS go to `serve` (e.g. `--tls-cert C --tls-key K`: the base is then https://, and
# curl's readiness check does not verify the self-signed certificate).
# Needs `$work` (a temp folder the caller removes). Sets `key` (the new key), `server` (the
# server's pid; the caller stops it) and `base` (http://127.0.0.1:PORT; PORT 0 takes an
# ephemeral port, read from the address the server prints). EXTRA_CONFIG is TOML
# added to the config, which already lifts `[server.plans.business]`.
#
#   screen_lua KEY THREADS [RATE]   (load.sh, soak.sh) prints wrk's Lua script of single-name
#                            screenings (POST /api/v1/screen, ten names in turn) whose summary
#                            gives the requests, the rate reached and every error; with RATE
#                            (requests/s in all), each of the THREADS wrk threads sends its
#                            share on a schedule kept with the wall clock (LuaJIT's ffi), so
#                            the rate holds whatever the latency; it never bursts to catch up
#                            more than one second late. Without RATE, wrk sends as fast as the
#                            answers come (closed loop: the throughput's ceiling).
serve_for_test() {
    local bin=$1 data_dir=$2 port=$3 label=$4 extra=$5 scheme=http
    shift 5
    case " $* " in *" --tls-cert "*) scheme=https ;; esac
    printf '%s\n[server.plans.business]\nrequests_per_minute = 1000000000\nscreenings_per_month = "unlimited"\n' \
        "$extra" >"$work/config.toml"
    key=$("$bin" --data-dir "$data_dir" keys create --plan business --label "$label" --json |
        sed -n 's/.*"key": "\(sk_live_[A-Za-z0-9]*\)".*/\1/p')
    "$bin" --data-dir "$data_dir" --config "$work/config.toml" serve --bind "127.0.0.1:$port" "$@" >"$work/serve.out" &
    server=$!
    base="$scheme://127.0.0.1:$port"
    for _ in $(seq 1 600); do
        if [ "$port" = 0 ]; then # an ephemeral port: the address the server prints
            base=$(sed -n 's|^listening on \(https\?://[0-9.:]*\).*|\1|p' "$work/serve.out" | head -n 1)
        fi
        [ -n "$base" ] && curl -kfs "$base/readyz" >/dev/null 2>&1 && return 0
        kill -0 "$server" 2>/dev/null || break
        sleep 0.2
    done
    echo "the server did not become ready (see $work/serve.out and $data_dir/sanctions.log)" >&2
    return 1
}

wrk_setup() {
    [ -d "$1" ] || { echo "$1 is not a folder" >&2; exit 2; }
    data_dir=$(cd "$1" && pwd)
    connections=${CONNECTIONS:-64}
    threads=${THREADS:-2}
    cd "$(dirname "${BASH_SOURCE[0]}")/.."
    command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }
    [ -f "$data_dir/sanctions.db" ] || { echo "$data_dir holds no sanctions.db: import the lists first" >&2; exit 2; }
    if [ -n "${SANCTIONS_BIN:-}" ]; then
        bin=$SANCTIONS_BIN # a binary built already
    else
        cargo build --release --quiet
        bin=${CARGO_TARGET_DIR:-target}/release/sanctions
    fi
}

screen_lua() {
    local key=$1 threads=$2 rate=${3:-}
    if [ -n "$rate" ]; then
        cat <<LUA
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_usec; } paced_timeval;
int gettimeofday(paced_timeval *tv, void *tz);
]]
local tv = ffi.new("paced_timeval")
local function now_ms()
  ffi.C.gettimeofday(tv, nil)
  return tonumber(tv.tv_sec) * 1000 + tonumber(tv.tv_usec) / 1000
end
local interval = 1000 * $threads / $rate
local next_at = nil
delay = function()
  local now = now_ms()
  if next_at == nil or next_at < now - 1000 then next_at = now end
  local wait = next_at - now
  next_at = next_at + interval
  if wait < 0 then return 0 end
  return wait
end
LUA
    fi
    cat <<LUA
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
  local e = summary.errors
  io.write(string.format("requests: %d, rate: %.0f/s\n", summary.requests,
    summary.requests / (summary.duration / 1e6)))
  io.write(string.format("errors: %d (non-2xx %d, connect %d, read %d, write %d, timeout %d)\n",
    e.status + e.connect + e.read + e.write + e.timeout,
    e.status, e.connect, e.read, e.write, e.timeout))
end
LUA
}
