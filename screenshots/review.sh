#!/bin/sh
# Screenshots of the terminal UI doing real review work, made from the real program: the
# lists imported into a temporary data folder, `sanctions` in tmux at 120x40 (and one at
# 80x24), each scene captured with its colours (`tmux capture-pane -e -p`), turned into HTML
# by `aha` and shot by headless Chromium into screenshots/review-*.png.
#
# Scenes: a stored batch of customers with hits (their columns kept), a match's detail with
# the decisions recorded on it, alerts with three selected for one note, a new webhook's
# signing secret shown whole; and the Screen tab reviewing results at 80x24.
#
# The setup (data folder, tmux, capture) is scripts/tui_shots.sh, shared with
# scripts/screenshots.sh. Needs: tmux, aha, chromium (Debian: apt-get install -y tmux aha
# chromium) and a built binary (cargo build; SANCTIONS_BIN overrides the path). The config
# is `offline = true`: nothing leaves the machine while the screenshots are made. Usage:
#   screenshots/review.sh [LISTS_DIR]     (default: ../shared/data/lists)
set -eu

. "$(dirname "$0")/../scripts/tui_shots.sh"
shots_setup "${1:-}" review '[ui]
colors = "256"
offline = true
[briefs]
feeds = []
'
cat >"$work/customers.csv" <<'EOF'
customer_id,name,country
C-1001,Banco Nacional de Cuba,CU
C-1002,Maria Gonzalez,ES
C-1003,Vladimir Putin,RU
C-1004,Acme Trading GmbH,DE
C-1005,Kim Jong Un,KP
C-1006,Hezbollah,LB
C-1007,John Q Nobody,GB
C-1008,Islamic Revolutionary Guard Corps,IR
EOF

start 120 40
# 1. A batch of customers: every column kept, hits first.
keys Escape
wait_for "REVIEW"
keys 2
wait_for "Progress"
keys l
wait_for "Batch file"
keys -l "$work/customers.csv"
keys Enter
wait_for "name(s) screened"
keys s
sleep 0.3
shoot review-1-batch-hits 1040 700

# 2. A match's detail with the decisions recorded on it.
keys 1
wait_for "[1:Screen]"
keys Up
wait_for "TYPING"
keys -l "Banco Nacional de Cuba"
keys Enter
wait_for 'for "Banco Nacional de Cuba"'
keys Down
wait_for "REVIEW: f/t/e decide"
keys Enter
wait_for "The listed entry"
keys e
wait_for "note (required)"
keys -l "same name and country as our customer C-1001: compliance to check the account"
keys Enter
wait_for "recorded: escalated"
keys t
wait_for "note (required)"
keys -l "confirmed by compliance: the Cuban state bank, account frozen"
keys Enter
wait_for "Record true_match?"
keys y
wait_for "recorded: true_match"
shoot review-2-match-detail-decisions 1040 700

# 3. Alerts, three selected for one note.
keys Escape
sleep 0.2
keys Escape
wait_for "REVIEW"
keys 6
wait_for "Alerts · open"
keys j Space Space Space
wait_for "3 SELECTED"
keys a
wait_for "one note for all"
keys -l "batch of 2026-11-25: reviewed together"
shoot review-3-alerts-selected 1040 700
keys Escape
sleep 0.2

# 4. A new webhook's signing secret, whole, with y to copy it.
keys 7
wait_for "Webhooks"
keys a
wait_for "New webhook"
keys -l "https://hooks.example.com/sanctions"
keys Enter
wait_for "Events, comma-separated"
keys Enter
wait_for "shown once"
shoot review-4-webhook-secret 1040 700
keys q
sleep 0.5

# 5. At 80x24: the Screen tab reviewing a screening's results.
start 80 24
keys -l "Kim Jong Un"
keys Enter
wait_for 'for "Kim Jong Un"'
keys Down
wait_for "REVIEW: f/t/e decide"
shoot review-5-screen-80x24 700 430
keys q
