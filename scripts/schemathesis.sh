#!/usr/bin/env bash
# Property-based API fuzzing of `sanctions serve` with schemathesis, from the server's own
# OpenAPI document (GET /api/v1/openapi.json).
#
#   scripts/schemathesis.sh DATA_DIR [MAX_EXAMPLES]     e.g. scripts/schemathesis.sh /tmp/d 20
#
# DATA_DIR must already hold imported lists (`sanctions --data-dir D lists import DIR`). A
# Business key is created in it and the server runs with a config that lifts the plan's rate
# and credits, so that the fuzzer meets the handlers, not the limiter. Needs schemathesis:
# `python3 -m venv /tmp/st && /tmp/st/bin/pip install schemathesis` (or SCHEMATHESIS=PATH).
# SANCTIONS_BIN=PATH uses a binary built already; else a debug build is made.
set -euo pipefail

data_dir=${1:?usage: scripts/schemathesis.sh DATA_DIR [MAX_EXAMPLES]}
max_examples=${2:-20}
port=${PORT:-18181}
st=${SCHEMATHESIS:-/tmp/st/bin/schemathesis}
[ -x "$st" ] || command -v "$st" >/dev/null || { echo "schemathesis not found at $st" >&2; exit 2; }
[ -f "$data_dir/sanctions.db" ] || { echo "$data_dir holds no sanctions.db: import the lists first" >&2; exit 2; }

cd "$(dirname "$0")/.."
if [ -n "${SANCTIONS_BIN:-}" ]; then
    bin=$SANCTIONS_BIN
else
    cargo build --quiet
    bin=${CARGO_TARGET_DIR:-target}/debug/sanctions
fi

work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
. scripts/serve_for_test.sh
serve_for_test "$bin" "$data_dir" "$port" schemathesis $'[webhooks]\nallow_private_targets = true'

cd "$work" # schemathesis keeps a cache in the working directory: not in the repository
"$st" run "$base/api/v1/openapi.json" \
    --header "Authorization: Bearer $key" \
    --checks all \
    --max-examples "$max_examples" \
    --url "$base"
