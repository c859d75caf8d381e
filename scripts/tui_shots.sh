# Sourced by scripts/screenshots.sh and screenshots/review.sh (POSIX sh, `set -eu` there):
# the setup both share. The real program on the real lists imported into a temporary data
# folder, in tmux on its own socket; each frame captured with its colours
# (`tmux capture-pane -e -p`), turned into HTML by `aha` and shot by headless Chromium.
#
# shots_setup LISTS_DIR NAME CONFIG: checks the tools, the binary and the lists; sets $root,
#   $bin, $out, $work and $sock; imports the lists into $work/data; writes CONFIG (the TOML
#   text) to $work/config.toml, the program's own config, never the user's.
# start WIDTH HEIGHT: (re)starts the UI in a session of that size, waits for its first frame.
# wait_for TEXT, keys KEY...: wait until the pane shows TEXT (120 s at most); send keys.
# shoot NAME WIDTH HEIGHT: the pane into $out/NAME.png, the window WIDTH x HEIGHT pixels.

shots_setup() {
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
    sock=sanctions-$2-$$
    trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
    "$bin" --data-dir "$work/data" lists import "$lists" >/dev/null
    printf '%s' "$3" >"$work/config.toml"
    mkdir -p "$out"
}

start() {
    tmux -L "$sock" kill-server 2>/dev/null || true
    tmux -L "$sock" -f /dev/null new-session -d -s s -x "$1" -y "$2" \
        "env TERM=xterm-256color $bin --config $work/config.toml --data-dir $work/data"
    tmux -L "$sock" set-option -g escape-time 0
    wait_for "1:Screen"
}

wait_for() {
    i=0
    until tmux -L "$sock" capture-pane -p -t s | grep -qF -- "$1"; do
        i=$((i + 1))
        [ "$i" -lt 1200 ] || { echo "timed out waiting for: $1" >&2; tmux -L "$sock" capture-pane -p -t s >&2; exit 1; }
        sleep 0.1
    done
}

keys() { tmux -L "$sock" send-keys -t s "$@"; }

shoot() {
    sleep 0.3
    tmux -L "$sock" capture-pane -e -p -t s | aha --black --title "sanctions: $1" >"$work/$1.html"
    # A monospace font and no wrapping, so the frame looks as in the terminal.
    sed -i 's|<head>|<head><style>body{margin:8px} pre{font-family:"DejaVu Sans Mono",monospace;font-size:14px;line-height:1.2;white-space:pre}</style>|' "$work/$1.html"
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="$2,$3" --screenshot="$out/$1.png" "file://$work/$1.html" >/dev/null 2>&1
    echo "screenshots/$1.png"
}
