#!/bin/sh
# Screenshots of every tab of the terminal UI, made from the real program: the lists are
# imported into a temporary data folder, `sanctions` runs in tmux (120x36), each tab is
# captured with its colours (`tmux capture-pane -e -p`), converted to HTML with `aha` and shot
# with headless Chromium into screenshots/NN-tab.png.
#
# Needs: tmux, aha, chromium (Debian: apt-get install -y tmux aha chromium) and a built
# binary (cargo build; SANCTIONS_BIN overrides the path). Usage:
#   scripts/screenshots.sh [LISTS_DIR]     (default: ../shared/data/lists)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
lists=${1:-$root/../shared/data/lists}
bin=${SANCTIONS_BIN:-${CARGO_TARGET_DIR:-$root/target}/debug/sanctions}
out=$root/screenshots
for tool in tmux aha chromium; do
    command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install -y $tool)" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "no binary at $bin: run cargo build first" >&2; exit 1; }
[ -d "$lists" ] || { echo "no lists folder at $lists" >&2; exit 1; }

work=$(mktemp -d)
sock=sanctions-shots-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin" --data-dir "$work/data" lists import "$lists" >/dev/null
# Its own config (never the user's, which a first start would otherwise write): no feed is
# read from the internet; 256 colours, as most terminals over SSH.
printf '[ui]\ncolors = "256"\n[briefs]\nfeeds = []\n' >"$work/config.toml"

tmux -L "$sock" -f /dev/null new-session -d -s s -x 120 -y 36 \
    "env TERM=xterm-256color $bin --config $work/config.toml --data-dir $work/data"
tmux -L "$sock" set-option -g escape-time 0

# Waits (up to 120 s) until the pane shows $1.
wait_for() {
    i=0
    until tmux -L "$sock" capture-pane -p -t s | grep -qF -- "$1"; do
        i=$((i + 1))
        [ "$i" -lt 1200 ] || { echo "timed out waiting for: $1" >&2; tmux -L "$sock" capture-pane -p -t s >&2; exit 1; }
        sleep 0.1
    done
}
keys() { tmux -L "$sock" send-keys -t s "$@"; }

# Captures the pane into $out/$1.png.
shoot() {
    sleep 0.3
    tmux -L "$sock" capture-pane -e -p -t s | aha --black --title "sanctions: $1" >"$work/$1.html"
    # A monospace font and no wrapping, so the frame looks as in the terminal.
    sed -i 's|<head>|<head><style>body{margin:8px} pre{font-family:"DejaVu Sans Mono",monospace;font-size:14px;line-height:1.2;white-space:pre}</style>|' "$work/$1.html"
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size=1050,650 --screenshot="$out/$1.png" "file://$work/$1.html" >/dev/null 2>&1
    echo "screenshots/$1.png"
}

mkdir -p "$out"
wait_for "1:Screen"
keys -l "Vladimir Putin"
wait_for "not stored"
keys Enter
wait_for "pending_review"
shoot 1-screen
keys Enter
wait_for "Why it matched"
shoot 1-screen-detail
keys Escape
sleep 0.2
keys Escape
sleep 0.2
keys 3
wait_for "additions"
shoot 3-briefs
keys 4
wait_for "Entries"
shoot 4-lists
keys i
wait_for "Import the lists from a folder"
keys -l "$(dirname "$lists")/"
keys Tab
wait_for "lists/"
shoot 4-lists-import
keys Escape
sleep 0.2
keys 5 a
wait_for "Add to the watchlist"
keys -l "Kim Jong Un"
keys Enter
wait_for "added"
shoot 5-watchlist
keys 6
wait_for "Alerts ·"
shoot 6-alerts
keys 7
wait_for "Webhooks ·"
shoot 7-webhooks
keys 2
wait_for "Batch"
shoot 2-batch
keys q
