#!/bin/sh
# Screenshots of every tab of the terminal UI, made from the real program: the lists are
# imported into a temporary data folder, `sanctions` runs in tmux (120x36), each tab is
# captured with its colours (`tmux capture-pane -e -p`), converted to HTML with `aha` and shot
# with headless Chromium into screenshots/NN-tab.png.
#
# The setup (data folder, tmux, capture) is scripts/tui_shots.sh, shared with
# screenshots/review.sh. Needs: tmux, aha, chromium (Debian: apt-get install -y tmux aha
# chromium) and a built binary (cargo build; SANCTIONS_BIN overrides the path). Usage:
#   scripts/screenshots.sh [LISTS_DIR]     (default: ../shared/data/lists)
set -eu

# Its own config (never the user's, which a first start would otherwise write): no feed is
# read from the internet; 256 colours, as most terminals over SSH.
. "$(dirname "$0")/tui_shots.sh"
shots_setup "${1:-}" shots '[ui]
colors = "256"
[briefs]
feeds = []
'
start 120 36
keys -l "Vladimir Putin"
wait_for "not stored"
keys Enter
wait_for "pending_review"
shoot 1-screen 1050 650
keys Enter
wait_for "Why it matched"
shoot 1-screen-detail 1050 650
keys Escape
sleep 0.2
keys Escape
sleep 0.2
keys 3
wait_for "additions"
shoot 3-briefs 1050 650
keys 4
wait_for "Entries"
shoot 4-lists 1050 650
keys i
wait_for "Import the lists from a folder"
keys -l "$(dirname "$lists")/"
keys Tab
wait_for "lists/"
shoot 4-lists-import 1050 650
keys Escape
sleep 0.2
keys 5 a
wait_for "Add to the watchlist"
keys -l "Kim Jong Un"
keys Enter
wait_for "added"
shoot 5-watchlist 1050 650
keys 6
wait_for "Alerts ·"
shoot 6-alerts 1050 650
keys 7
wait_for "Webhooks ·"
shoot 7-webhooks 1050 650
keys 2
wait_for "Batch"
shoot 2-batch 1050 650
keys q
