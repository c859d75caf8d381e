#!/usr/bin/env bash
# Property-based API fuzzing of a real `sanctions serve` with schemathesis, from the server's
# own OpenAPI document (GET /api/v1/openapi.json), every check on.
#
#   scripts/schemathesis.sh [MAX_EXAMPLES]          (default 20 examples per operation)
#
# A fresh data folder in a temp folder gets the real lists imported (LISTS=DIR, default
# ../shared/data/lists beside the checkout), a Business key, and a server on 127.0.0.1 with an
# ephemeral port and a config that lifts the plan's rate and credits, so that the fuzzer meets
# the handlers, not the limiter. Loopback only. schemathesis comes from PyPI into a venv under
# target/ (VENV=DIR to choose it; SCHEMATHESIS=PATH uses one installed already).
# SANCTIONS_BIN=PATH uses a binary built already; else a debug build is made. SEED=N repeats
# a run. The output ends with schemathesis's summary; the exit status is schemathesis's.
set -euo pipefail

max_examples=${1:-20}
cd "$(dirname "$0")/.."
lists=${LISTS:-../shared/data/lists}
[ -d "$lists" ] || { echo "no list files at $lists (see ../shared/data/SOURCES.md, or LISTS=DIR)" >&2; exit 2; }
lists=$(cd "$lists" && pwd)

venv=${VENV:-target/py-venv}
if [ -n "${SCHEMATHESIS:-}" ]; then
    st=$SCHEMATHESIS
else
    if [ ! -x "$venv/bin/schemathesis" ]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet 'schemathesis==4.32.5'
    fi
    st=$(cd "$venv/bin" && pwd)/schemathesis
fi

if [ -n "${SANCTIONS_BIN:-}" ]; then
    bin=$SANCTIONS_BIN
else
    cargo build --quiet
    bin=${CARGO_TARGET_DIR:-target}/debug/sanctions
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
data_dir=$work/data
"$bin" --data-dir "$data_dir" lists import "$lists" >"$work/import.out"
. scripts/serve_for_test.sh
# No feed is read (network to loopback only); the throttle of failed authentications, which
# schemathesis's requests without a key would trip for the whole run, is lifted.
serve_for_test "$bin" "$data_dir" 0 schemathesis "$(printf '%s\n' \
    '[webhooks]' 'allow_private_targets = true' '[briefs]' 'feeds = []' \
    '[server]' 'auth_failures_per_window = 1000000000')"

cd "$work" # schemathesis keeps a cache in the working directory: not in the repository
"$st" run "$base/api/v1/openapi.json" \
    --header "Authorization: Bearer $key" \
    --checks all \
    --max-examples "$max_examples" \
    --seed "${SEED:-1}" \
    --url "$base"
