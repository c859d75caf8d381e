#!/usr/bin/env bash
# Generates a Python client from a real `sanctions serve`'s OpenAPI document with
# openapi-python-client (PyPI), then calls every operation through it and parses every answer
# into the generated models (scripts/client_check.py).
#
#   scripts/client_check.sh
#
# A fresh data folder in a temp folder gets the real lists imported (LISTS=DIR, default
# ../shared/data/lists beside the checkout), a Business key with every scope, and a server on
# 127.0.0.1 with an ephemeral port, no news feeds (network to loopback only) and private
# webhook targets allowed (the webhook points at 127.0.0.1:9). The generator comes from PyPI
# into a venv under target/ (VENV=DIR to choose it). SANCTIONS_BIN=PATH uses a binary built
# already; else a debug build is made. Exits non-zero at the first operation that fails.
set -euo pipefail

cd "$(dirname "$0")/.."
lists=${LISTS:-../shared/data/lists}
[ -d "$lists" ] || { echo "no list files at $lists (see ../shared/data/SOURCES.md, or LISTS=DIR)" >&2; exit 2; }
lists=$(cd "$lists" && pwd)

venv=${VENV:-target/py-venv}
if [ ! -x "$venv/bin/openapi-python-client" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'openapi-python-client==0.29.1'
fi
venv=$(cd "$venv" && pwd)

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
serve_for_test "$bin" "$data_dir" 0 client "$(printf '%s\n' \
    '[webhooks]' 'allow_private_targets = true' '[briefs]' 'feeds = []')"
key=$("$bin" --data-dir "$data_dir" keys create --plan business --label client-check \
    --scopes screen,review,watchlist,webhooks,audit,admin --json |
    sed -n 's/.*"key": "\(sk_live_[A-Za-z0-9]*\)".*/\1/p')

curl -fsS "$base/api/v1/openapi.json" >"$work/openapi.json"
(cd "$work" && "$venv/bin/openapi-python-client" generate --path openapi.json --meta none \
    --output-path client >generate.out 2>&1) || { cat "$work/generate.out" >&2; exit 1; }
# The one warning expected: the CSV form of a batch, which the generator does not support
# (the JSON form is generated and called).
grep -i "warning" -A2 "$work/generate.out" | grep -iv "ruff\|^--$" >&2 || true
"$venv/bin/python" scripts/client_check.py "$work" "$base" "$key"
