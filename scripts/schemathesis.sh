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
# a run. The output is schemathesis's report, then the failures sorted: each must be one of
# the refusals docs/server.md lists, which the document cannot express (exit 1 otherwise).
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

# A key with every scope, `admin` too (the account's keys).
key=$("$bin" --data-dir "$data_dir" keys create --plan business --label schemathesis-all \
    --scopes screen,review,watchlist,webhooks,audit,admin --json |
    sed -n 's/.*"key": "\(sk_live_[A-Za-z0-9]*\)".*/\1/p')

cd "$work" # schemathesis keeps a cache in the working directory: not in the repository
"$st" run "$base/api/v1/openapi.json" \
    --header "Authorization: Bearer $key" \
    --checks all \
    --max-examples "$max_examples" \
    --seed "${SEED:-1}" \
    --report junit --report-junit-path "$work/junit.xml" \
    --url "$base" || true

# Every failure must be one of the refusals docs/server.md lists (Third-party checks), each
# recognised by the server's message: state or content the document cannot express.
python3 - "$work/junit.xml" <<'PY'
import re, sys, xml.etree.ElementTree as ET
known = {
    "a favorite already on the watchlist": r"already on the watchlist",
    "a decision on a screening that matched nothing": r"matched nothing \(no_match\)",
    "the 20-webhook cap": r"at most 20 webhooks",
    "an alert that cannot take this status": r"is resolved: it cannot become|cannot become",
    "a name with nothing to screen": r"leaves nothing to screen",
    "an audit cursor with the JSON form": r"only the streamed forms",
    "a CSV batch body `null` (text, screened as the name null)": r"text/csv' -d null",
}
seen, unknown = {}, []
for failure in ET.parse(sys.argv[1]).getroot().iter("failure"):
    text = (failure.get("message") or "") + "\n" + (failure.text or "")
    name = next((k for k, pattern in known.items() if re.search(pattern, text)), None)
    if name:
        seen[name] = seen.get(name, 0) + 1
    else:
        unknown.append(text)
for name, count in seen.items():
    print(f"known refusal: {name} ({count})")
for text in unknown:
    print("UNEXPECTED FAILURE:\n" + text, file=sys.stderr)
print(f"{sum(seen.values())} known refusals, {len(unknown)} unexpected failures")
sys.exit(1 if unknown else 0)
PY
