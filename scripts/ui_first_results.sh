#!/usr/bin/env bash
# The terminal UI's first results (issue 27): the real binary in a tmux pane on a data folder
# with the lists imported; the name is typed as soon as the first frame shows, and the time
# from the process's start to the first result row on screen is reported, RUNS times.
#
#   scripts/ui_first_results.sh BIN DATA_DIR [RUNS] [NAME]    default 5 runs, "Vladimir Putin"
#
# Polls `tmux capture-pane` (a few milliseconds a poll, so figures are that coarse). The
# config read is an offline one (no feeds), written beside the data folder's files.
set -euo pipefail

bin=${1:?usage: ui_first_results.sh BIN DATA_DIR [RUNS] [NAME]}
data=${2:?usage: ui_first_results.sh BIN DATA_DIR [RUNS] [NAME]}
runs=${3:-5}
name=${4:-Vladimir Putin}
expect=${EXPECT:-PUTIN}
socket="ui-first-results-$$"
config="$data/offline.toml"
printf '[briefs]\nfeeds = []\n' >"$config"
tm() { tmux -L "$socket" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT

ms() { echo $(($(date +%s%N) / 1000000)); }

# Polls the pane until it shows "$1"; fails after 30 s.
wait_for() {
    local deadline=$(($(ms) + 30000))
    until tm capture-pane -p -t t | grep -q -- "$1"; do
        [ "$(ms)" -lt "$deadline" ] || { echo "no \"$1\" on screen" >&2; tm capture-pane -p -t t >&2; exit 1; }
    done
}

for run in $(seq "$runs"); do
    tm kill-server 2>/dev/null || true
    started=$(ms)
    tm new-session -d -s t -x 120 -y 40 "SANCTIONS_CONFIG=$config $bin --data-dir $data"
    tm set-option -g escape-time 0 >/dev/null
    wait_for "1:Screen"
    frame=$(($(ms) - started))
    tm send-keys -t t -l "$name"
    tm send-keys -t t Enter
    wait_for "$expect"
    results=$(($(ms) - started))
    echo "run $run: first frame $frame ms, first results $results ms after start"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
