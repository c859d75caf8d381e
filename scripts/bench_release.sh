#!/usr/bin/env bash
# Two builds side by side on the same input, in one run (issue 27): the previous release and
# this one, each with its own fresh data folder holding the eight lists, alternating run by
# run so that the machine's load falls on both alike.
#
#   scripts/bench_release.sh OLD_BIN NEW_BIN [RUNS]      default 5 runs of each measure
#
# Measures, for each binary (release builds; build the previous one from its tag or commit
# in a separate worktree with `cargo build --release`):
#   - cold start: `sanctions screen "Vladimir Putin"` from process start to printed result
#     (wall clock, /usr/bin/time), median of RUNS; the first screen after the import is not
#     counted (the previous release builds its index in every process, this one reads the
#     index written at import);
#   - `sanctions batch` of the development set's queries (../shared/eval/dev.csv, the
#     `query` column, JSON lines to /dev/null): wall clock of the whole process, names/s,
#     and peak RSS (/usr/bin/time %M), median of RUNS.
# Lists from ../shared/data/lists (LISTS to change), queries from ../shared/eval/dev.csv (DEV).
set -euo pipefail

old=${1:?usage: bench_release.sh OLD_BIN NEW_BIN [RUNS]}
new=${2:?usage: bench_release.sh OLD_BIN NEW_BIN [RUNS]}
runs=${3:-5}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
lists=${LISTS:-../shared/data/lists}
dev=${DEV:-../shared/eval/dev.csv}
[ -d "$lists" ] || { echo "no lists at $lists" >&2; exit 1; }
[ -f "$dev" ] || { echo "no development set at $dev" >&2; exit 1; }
rows=$(($(wc -l <"$dev") - 1))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Seconds (wall), peak RSS (KiB) and CPU seconds (user, system) of one run of "$@", output
# discarded. Exit 3 (some rows not
# screened) is an answer too; anything else stops the script.
timed() {
    local code=0
    /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/err" || code=$?
    if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then
        echo "failed ($code): $*" >&2
        cat "$work/err" >&2
        exit 1
    fi
    tail -n 1 "$work/time"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for which in old new; do
    bin=${!which}
    mkdir -m 700 "$work/$which"
    "$bin" --data-dir "$work/$which" lists import "$lists" >/dev/null
    "$bin" --data-dir "$work/$which" screen "Vladimir Putin" >/dev/null
done

for run in $(seq "$runs"); do
    for which in old new; do
        bin=${!which}
        timed "$bin" --data-dir "$work/$which" screen "Vladimir Putin" >>"$work/$which.screen"
        timed "$bin" --data-dir "$work/$which" batch "$dev" --column query --json >>"$work/$which.batch"
    done
done

printf '%s\n' "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
cpu() { awk '{print $3 + $4}'; }
printf '%-6s %10s %10s %10s %10s %10s %12s %10s\n' build "screen s" "screen cpu" "screen MB" \
    "batch s" "batch cpu" "names/s" "batch MB"
for which in old new; do
    screen=$(cut -d' ' -f1 "$work/$which.screen" | median)
    screen_cpu=$(cpu <"$work/$which.screen" | median)
    screen_rss=$(cut -d' ' -f2 "$work/$which.screen" | median)
    batch=$(cut -d' ' -f1 "$work/$which.batch" | median)
    batch_cpu=$(cpu <"$work/$which.batch" | median)
    batch_rss=$(cut -d' ' -f2 "$work/$which.batch" | median)
    printf '%-6s %10s %10s %10.0f %10s %10s %12.0f %10.0f\n' "$which" "$screen" "$screen_cpu" \
        "$(echo "$screen_rss / 1024" | bc -l)" "$batch" "$batch_cpu" "$(echo "$rows / $batch" | bc -l)" \
        "$(echo "$batch_rss / 1024" | bc -l)"
done
echo "(seconds are wall clock, cpu is user + system seconds of the process, MB peak RSS; medians)"
echo "($runs runs each, alternating; $rows rows in $dev)"
for which in old new; do
    echo "$which screen runs (wall, cpu): $(awk '{printf "%s/%.2f ", $1, $3 + $4}' "$work/$which.screen")"
    echo "$which batch runs (wall, cpu):  $(awk '{printf "%s/%.2f ", $1, $3 + $4}' "$work/$which.batch")"
done
