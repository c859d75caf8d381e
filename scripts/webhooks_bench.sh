#!/usr/bin/env bash
# Webhook delivery throughput: a backlog of N events (default 5000; docs/concurrency.md uses
# 60000) drained by one worker to one healthy loopback endpoint. Prints the drain time and
# deliveries/s.
# Usage: scripts/webhooks_bench.sh [N] [--debug]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-5000}"
profile=(--release)
if [[ "${2:-}" == "--debug" ]]; then profile=(); fi
cargo run --quiet "${profile[@]}" --example webhooks_bench -- "$n"
