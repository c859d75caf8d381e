//! End to end: the real binary in tmux (its own socket, `escape-time 0`), driven by keys and
//! read back with `capture-pane`: screen a name and see the entry, switch every tab, add
//! and remove a watchlist name, resize, quit with the terminal restored.
#![allow(clippy::unwrap_used)]

use crate::common;
use crate::tmux;
use common::shared_data as shared;
use tmux::{Tmux, exit_status, import};

use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn screen_switch_tabs_watchlist_resize_and_quit_restored() {
    let shared = shared();
    let data = tempfile::tempdir().unwrap();
    import(data.path(), &shared.join("lists"));
    let tmux = Tmux::new("e2e");
    // The shell reports the terminal mode after the UI exits: `icanon` means raw mode is off.
    let command = format!(
        "SANCTIONS_CONFIG={1}/offline.toml {} --data-dir {} ; stty -a | tr ' ' '\\n' | grep -x -- '-*icanon'; echo EXITED $?",
        env!("CARGO_BIN_EXE_sanctions"),
        data.path().display()
    );
    let started = Instant::now();
    tmux.start(&command);
    while !tmux.pane().contains("1:Screen") {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no first frame:\n{}",
            tmux.pane()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // Includes tmux start-up and the debug build; the index is built after this frame.
    let first = started.elapsed().as_millis();
    eprintln!("first frame after {first} ms (debug build, tmux start included)");
    assert!(first < 3000, "first frame after {first} ms");

    tmux.text("Vladimir Putin");
    tmux.keys(&["Enter"]);
    tmux.wait_for_all(&["matches for", "PUTIN"], 60);

    // Idle: no redraw without input, so the process uses (almost) no CPU.
    let shell = tmux.run(&["list-panes", "-t", "t", "-F", "#{pane_pid}"]);
    let ui = String::from_utf8(
        Command::new("pgrep")
            .args(["-P", shell.trim()])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let ticks = |pid: &str| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    };
    let pid = ui.trim();
    std::thread::sleep(Duration::from_millis(500));
    let before = ticks(pid);
    std::thread::sleep(Duration::from_secs(3));
    let used = ticks(pid) - before;
    eprintln!("idle CPU: {used} clock ticks (1/100 s) in 3 s");
    assert!(used <= 6, "the idle UI used {used} ticks in 3 s");

    tmux.keys(&["Escape"]);
    // Out of the name field before the next key, so that the key is sent to the new mode
    // (what Esc and a key read together do is tested on its own).
    tmux.wait_mode("REVIEW", 30);
    for (key, needle) in [
        ("2", "Progress"),
        ("3", "additions"), // the briefs of the imports (written on first view)
        ("4", "Entries"),
        ("5", "Watchlist ·"),
        ("6", "Alerts ·"),
        ("7", "Webhooks · a add"),
        ("1", "Name"),
    ] {
        tmux.keys(&[key]);
        tmux.wait_for(needle, 120);
    }

    tmux.keys(&["5", "a"]);
    tmux.wait_for("Add to the watchlist", 10);
    tmux.text("Kim Jong Un");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Date of birth of \"Kim Jong Un\"", 10);
    tmux.keys(&["Enter"]); // no date of birth
    tmux.wait_for("Country", 10);
    tmux.keys(&["Enter"]); // no country
    tmux.wait_for("Note for \"Kim Jong Un\"", 10);
    tmux.keys(&["Enter"]); // no note
    tmux.wait_for("added \"Kim Jong Un\"", 30);
    tmux.keys(&["d"]);
    tmux.wait_for("(y/n)", 10);
    tmux.keys(&["y"]);
    tmux.wait_for("The watchlist is empty", 30);

    tmux.run(&["resize-window", "-t", "t", "-x", "50", "-y", "12"]);
    tmux.wait_for("too small", 10);
    tmux.run(&["resize-window", "-t", "t", "-x", "120", "-y", "36"]);
    tmux.wait_for("Watchlist ·", 10);

    tmux.keys(&["q"]);
    let pane = tmux.wait_for("EXITED", 20);
    assert!(
        pane.lines().any(|l| l.trim() == "icanon"),
        "raw mode left on:\n{pane}"
    );
    assert!(
        !pane.contains("Watchlist ·"),
        "the alternate screen was not left:\n{pane}"
    );
}

#[test]
fn briefs_and_webhooks_tabs_end_to_end() {
    let shared = shared();
    let data = tempfile::tempdir().unwrap();
    import(data.path(), &shared.join("lists"));
    let tmux = Tmux::new("e2e-tabs");
    // The shell writes the UI's exit status to a file: tmux 3.3 on a loaded machine sometimes
    // leaves an exited pane process unreaped, or shows a dead pane without the last output
    // it read, so neither `pane_dead` nor the screen is a witness.
    let status = data.path().join("ui-exit-status");
    let command = format!(
        "SANCTIONS_CONFIG={1}/offline.toml {} --data-dir {}; echo $? > {}",
        env!("CARGO_BIN_EXE_sanctions"),
        data.path().display(),
        status.display()
    );
    tmux.start(&command);
    tmux.wait_for("1:Screen", 10);

    // Results as you type: no Enter, and the title says nothing was stored.
    tmux.text("Vladimir Putin");
    tmux.wait_for_all(&["not stored", "PUTIN"], 60);
    tmux.keys(&["Enter"]);
    tmux.wait_for("pending_review", 60);

    // Esc alone, the next key only once it took effect.
    tmux.keys(&["Escape"]);
    tmux.wait_mode("REVIEW", 30);
    tmux.keys(&["3"]);
    tmux.wait_for_all(&["OFAC SDN", "additions"], 120);
    tmux.keys(&["Enter"]);
    tmux.wait_for("Brief · ", 10);
    tmux.keys(&["Escape"]);
    tmux.wait_gone("Brief · ", 30);
    tmux.keys(&["7"]);
    tmux.wait_for("No webhook", 30);
    tmux.keys(&["a"]);
    tmux.wait_for("New webhook", 10);
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", closed.local_addr().unwrap());
    drop(closed);
    tmux.text(&url);
    tmux.keys(&["Enter"]);
    tmux.wait_for("Events, comma-separated", 10);
    tmux.keys(&["Enter"]);
    tmux.wait_for("shown once", 30);
    tmux.keys(&["t"]);
    tmux.wait_for("NOT delivered", 30);
    tmux.keys(&["Enter"]);
    tmux.wait_for("webhook.test", 10);
    tmux.keys(&["Escape"]);
    tmux.wait_gone("webhook.test", 30);
    tmux.keys(&["d"]);
    tmux.wait_for("(y/n)", 10);
    tmux.keys(&["y"]);
    tmux.wait_for("No webhook", 30);

    tmux.keys(&["q"]);
    // Work still running (a slow reload on a loaded machine) makes the UI ask first.
    assert_eq!(exit_status(&tmux, &status), "0", "the UI's exit status");
    // tmux may read the UI's last output (leaving the alternate screen) a moment later.
    let left = Instant::now();
    while tmux.pane().contains("Webhooks ·") {
        assert!(
            left.elapsed() < Duration::from_secs(10),
            "the alternate screen was not left:\n{}",
            tmux.pane()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_ui_against_a_real_server_screens_and_quits() {
    let data = common::serve::data();
    let key = common::serve::new_key(data, "business", "tmux");
    let serve = common::serve::Serve::start(data, None).await;
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("ui.toml"), "[briefs]\nfeeds = []\n").unwrap();
    let status = home.path().join("ui-exit-status");
    let tmux = Tmux::new("e2e-remote");
    // The key comes from the environment; the data folder is an empty one (nothing is read
    // from it: everything goes to the server).
    let command = format!(
        "SANCTIONS_CONFIG={0}/ui.toml SANCTIONS_API_KEY={1} {2} --data-dir {0} --remote {3}; echo $? > {4}",
        home.path().display(),
        key,
        env!("CARGO_BIN_EXE_sanctions"),
        serve.base,
        status.display()
    );
    tmux.start(&command);
    tmux.wait_for_all(&["1:Screen", "REMOTE 127.0.0.1:"], 10);
    tmux.text("Vladimir Putin");
    tmux.keys(&["Enter"]);
    // The server counted the request: the status bar shows the rate limit left.
    tmux.wait_for_all(&["matches for", "requests left", "PUTIN"], 120);
    tmux.keys(&["Escape"]);
    tmux.wait_mode("REVIEW", 30);
    tmux.keys(&["4"]);
    tmux.wait_for_all(&["Entries", "on the server's machine"], 60);
    tmux.keys(&["q"]);
    assert_eq!(exit_status(&tmux, &status), "0", "the UI's exit status");
    // What the UI stored is on the server.
    let stored =
        common::serve::call("GET", &serve.url("/screenings?limit=5"), Some(&key), None).await;
    let text = stored.data().to_string();
    assert!(text.to_lowercase().contains("vladimir putin"), "{text}");
    serve.stop();
}

#[test]
fn first_start_writes_the_config_file_and_reports_bad_remaps() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    let config = home.path().join("config/sanctions/config.toml");
    let status = home.path().join("ui-exit-status");
    let tmux = Tmux::new("e2e-config");
    // No --config nor SANCTIONS_CONFIG: the default file under XDG_CONFIG_HOME is written.
    let command = format!(
        "env -u SANCTIONS_CONFIG HOME={0} XDG_CONFIG_HOME={0}/config {1} --data-dir {2}; echo $? > {3}",
        home.path().display(),
        env!("CARGO_BIN_EXE_sanctions"),
        data.display(),
        status.display()
    );
    tmux.start(&command);
    tmux.wait_for("created the config file", 10);
    // Esc twice, as a newcomer would; the next key only once out of the name field.
    for _ in 0..2 {
        tmux.keys(&["Escape"]);
        std::thread::sleep(Duration::from_millis(200));
    }
    tmux.wait_mode("REVIEW", 30);
    tmux.keys(&["q"]);
    assert_eq!(exit_status(&tmux, &status), "0");
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(written.contains("[ui.keys]") && written.contains("# mouse = false"));
    // Nothing leaves the machine unasked: the file says how feeds go on and how to forbid all.
    assert!(written.contains("# feeds = false") && written.contains("# offline = false"));
    assert!(written.contains("# downloads = false"), "{written}");
    drop(tmux);

    // A remap onto a key taken elsewhere, and an unknown action: said at start, the rest
    // applies (q no longer quits; x does).
    std::fs::write(
        &config,
        format!("{written}\n[briefs]\nfeeds = []\n").replace(
            "# quit = [\"q\", \"ctrl-q\"]",
            "quit = \"ctrl-q\"\nfly = \"z\"\nsort = \"h\"",
        ),
    )
    .unwrap();
    std::fs::remove_file(&status).unwrap();
    let tmux = Tmux::new("e2e-config2");
    tmux.start(&command);
    tmux.wait_for_all(&["config: 2 problem(s)", "no such action"], 10);
    // Esc twice, as a newcomer would; the next key only once out of the name field.
    for _ in 0..2 {
        tmux.keys(&["Escape"]);
        std::thread::sleep(Duration::from_millis(200));
    }
    tmux.wait_mode("REVIEW", 30);
    tmux.keys(&["4", "q"]);
    tmux.wait_for("Entries", 30);
    std::thread::sleep(Duration::from_millis(300));
    assert!(std::fs::read_to_string(&status).is_err(), "q still quit");
    tmux.keys(&["C-q"]);
    assert_eq!(exit_status(&tmux, &status), "0");
}
