//! End to end, the traps of issue 21 with the exact keystrokes an analyst typed: the real
//! binary in tmux at 80x24, its store and clipboard read back after.
#![allow(clippy::unwrap_used)]

use crate::common;
use crate::tmux;
use common::shared_data as shared;
use tmux::{Tmux, exit_status};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A data folder with the real lists imported once per run; each test copies its database.
fn template() -> &'static Path {
    static TEMPLATE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let lists = shared().join("lists");
        tmux::import(dir.path(), &lists);
        let db = dir.path().join("sanctions.db");
        (dir, db)
    });
    path
}

/// A fresh data folder with the real lists, and a config that reads no feed and has `extra`.
fn data(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(template(), dir.path().join("sanctions.db")).unwrap();
    std::fs::write(
        dir.path().join("ui.toml"),
        format!("[briefs]\nfeeds = []\n{extra}"),
    )
    .unwrap();
    dir
}

/// Starts the UI on `data` at `width` x `height`; the shell writes its exit status.
fn start(data: &Path, name: &str, width: u16, height: u16) -> Tmux {
    let tmux = Tmux::new(name);
    let command = format!(
        "SANCTIONS_CONFIG={0}/ui.toml {1} --data-dir {0}; echo $? > {0}/ui-exit-status",
        data.display(),
        env!("CARGO_BIN_EXE_sanctions"),
    );
    tmux.start_sized(&command, width, height);
    tmux.wait_for_all(&["1:Screen", "TYPING"], 20);
    tmux
}

/// Esc out of the name field, waiting until the mode says so, so that the next key is
/// sent to the new mode (the test does not rely on how the UI reads Esc and a key together).
fn leave_field(tmux: &Tmux) {
    tmux.keys(&["Escape"]);
    tmux.wait_mode("REVIEW", 10);
}

fn cli(data: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Quits from the Screen tab: out of the name field first if the keyboard is there (Esc,
/// so that `q` is a command; Esc in REVIEW would go back into the field), then `q`.
fn quit(tmux: &Tmux, data: &Path) {
    if tmux.mode() != Some("REVIEW") {
        leave_field(tmux);
    }
    tmux.keys(&["q"]);
    assert_eq!(exit_status(tmux, &data.join("ui-exit-status")), "0");
}

/// Trap 1: after Enter stored a screening, the next name's letters were commands
/// (`T` a final true match noted "ariq Aziz", `q` of "al qaida" quit, `w` added to the
/// watchlist). Now the name field keeps the keyboard: nothing is decided, nothing quits.
#[test]
fn typing_the_next_name_after_enter_records_nothing_and_never_quits() {
    let data = data("");
    let tmux = start(data.path(), "trap1", 80, 24);
    for name in ["Banco Nacional de Cuba", "Tariq Aziz", "Ahmed Hassan"] {
        tmux.text(name);
        tmux.keys(&["Enter"]);
        tmux.wait_for_all(&[&format!("for \"{name}\""), "TYPING"], 120);
    }
    // The next name replaces the one just run (no appending, no clearing needed).
    tmux.text("al qaida");
    tmux.wait_for("│al qaida ", 10);
    tmux.text("w");
    tmux.wait_for("│al qaidaw", 10);
    assert!(
        std::fs::read_to_string(data.path().join("ui-exit-status")).is_err(),
        "the UI quit while a name was typed"
    );
    quit(&tmux, data.path());
    let audit: serde_json::Value =
        serde_json::from_str(&cli(data.path(), &["audit", "export", "--format", "json"])).unwrap();
    assert_eq!(audit["decisions"], serde_json::json!([]), "{audit}");
    assert_eq!(
        audit["screenings"].as_array().map(Vec::len),
        Some(3),
        "{audit}"
    );
    let watchlist = cli(data.path(), &["watchlist", "list"]);
    assert!(
        watchlist.contains("0 names on the watchlist"),
        "{watchlist}"
    );
}

/// Trap 1, second half: a final decision asks first, naming the screening and the entry;
/// any key but `y` records nothing.
#[test]
fn a_final_decision_asks_naming_the_screening_and_the_entry() {
    let data = data("");
    let tmux = start(data.path(), "trap1b", 80, 24);
    tmux.text("Banco Nacional de Cuba");
    tmux.keys(&["Enter"]);
    tmux.wait_for("for \"Banco Nacional de Cuba\"", 120);
    tmux.keys(&["Down"]);
    tmux.wait_mode("REVIEW", 10);
    tmux.keys(&["t"]);
    tmux.wait_for("note (required)", 10);
    tmux.text("same bank");
    tmux.keys(&["Enter"]);
    let pane = tmux.wait_for_all(&["Record true_match?", "screening scr_"], 10);
    assert!(pane.contains("CONFIRM"), "{pane}");
    tmux.keys(&["n"]);
    tmux.wait_mode("REVIEW", 10);
    quit(&tmux, data.path());
    let audit = cli(data.path(), &["audit", "export", "--format", "json"]);
    let audit: serde_json::Value = serde_json::from_str(&audit).unwrap();
    assert_eq!(audit["decisions"], serde_json::json!([]), "{audit}");
}

/// Esc and the key after it written at once (a quick typist over SSH) reach the UI as that
/// key with Alt: taken as typed, Esc then the key, so Esc q quits from the name field.
#[test]
fn esc_and_the_next_key_written_at_once_are_both_obeyed() {
    let data = data("");
    let tmux = start(data.path(), "escq", 80, 24);
    tmux.text("Banco Nacional de Cuba");
    tmux.keys(&["Enter"]);
    tmux.wait_for_all(&["for \"Banco Nacional de Cuba\"", "TYPING"], 120);
    tmux.text("\u{1b}q");
    assert_eq!(exit_status(&tmux, &data.path().join("ui-exit-status")), "0");
}

/// Trap 2: names pasted on the Batch tab with CR line breaks (tmux's paste) were screened
/// as one name. Each line is one name now.
#[test]
fn cr_separated_names_pasted_on_batch_are_screened_one_by_one() {
    let data = data("");
    let tmux = start(data.path(), "trap2", 80, 24);
    leave_field(&tmux);
    tmux.keys(&["2"]);
    tmux.wait_for("Progress", 20);
    // paste-buffer turns each LF into a CR; -p wraps it in bracketed paste, as asked.
    tmux.run(&[
        "set-buffer",
        "-b",
        "names",
        "Vladimir Putin\nJohn Smith\nHezbollah",
    ]);
    tmux.run(&["paste-buffer", "-p", "-b", "names", "-t", "t"]);
    tmux.wait_for("3 name(s) screened", 120);
    quit_from_commands(&tmux, data.path());
    let audit = cli(data.path(), &["audit", "export", "--format", "json"]);
    let audit: serde_json::Value = serde_json::from_str(&audit).unwrap();
    let queries: Vec<&str> = audit["screenings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["query"].as_str())
        .collect();
    assert_eq!(queries.len(), 3, "{queries:?}");
    assert!(
        queries.contains(&"Hezbollah") && !queries.iter().any(|q| q.contains("Putin John")),
        "{queries:?}"
    );
}

fn quit_from_commands(tmux: &Tmux, data: &Path) {
    tmux.keys(&["q"]);
    assert_eq!(exit_status(tmux, &data.join("ui-exit-status")), "0");
}

/// Trap 5: a new webhook's secret was cut off at 80 columns and `y` copied the id. Now it
/// is shown whole, and `y` puts the secret on the clipboard (OSC 52, read back from tmux).
#[test]
fn a_new_webhooks_secret_is_shown_whole_and_y_copies_it() {
    for (width, height) in [(80, 24), (120, 40)] {
        let data = data("");
        let tmux = start(data.path(), &format!("trap5-{width}"), width, height);
        tmux.run(&["set-option", "-g", "set-clipboard", "on"]);
        leave_field(&tmux);
        tmux.keys(&["7"]);
        tmux.wait_for("No webhook", 30);
        tmux.keys(&["a"]);
        tmux.wait_for("New webhook", 10);
        tmux.text("http://127.0.0.1:9/hook");
        tmux.keys(&["Enter"]);
        tmux.wait_for("Events, comma-separated", 10);
        tmux.keys(&["Enter"]);
        let pane = tmux.wait_for("shown once", 30);
        let secret = pane
            .lines()
            .find_map(|l| {
                let start = l.find("whsec_")?;
                let rest = &l[start..];
                let end = rest.find([' ', '│']).unwrap_or(rest.len());
                Some(rest[..end].to_owned())
            })
            .unwrap_or_else(|| panic!("no secret on screen:\n{pane}"));
        assert!(!secret.ends_with('…'), "cut: {secret}\n{pane}");
        tmux.keys(&["y"]);
        tmux.wait_for("copied the webhook's secret", 10);
        let start = std::time::Instant::now();
        let copied = loop {
            let out = Command::new("tmux")
                .args(["-L", &tmux.socket, "show-buffer"])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            if text.starts_with("whsec_") || start.elapsed().as_secs() > 10 {
                break text;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        assert_eq!(copied, secret, "the clipboard holds the secret shown");
        quit_from_commands(&tmux, data.path());
    }
}

/// Trap 6: with `[ui] offline = true` nothing is downloaded: `u` on Lists refuses and says
/// why; the first-start config documents `feeds` and `offline` (see `tui_tmux.rs`).
#[test]
fn offline_refuses_list_downloads() {
    let data = data("[ui]\noffline = true\n");
    let tmux = start(data.path(), "trap6", 80, 24);
    leave_field(&tmux);
    tmux.keys(&["4"]);
    tmux.wait_for("Entries", 30);
    tmux.keys(&["u"]);
    tmux.wait_for("offline = true in the config", 10);
    quit_from_commands(&tmux, data.path());
}

/// Trap 4: a stale or old list showed only on the Lists tab, and a no-match did not say what
/// was searched. Now the Screen tab and the status bar say it (the real files include an EU
/// file published in 2022: OLD by its publication date although imported today).
#[test]
fn coverage_is_in_sight_on_the_screen_tab_and_the_status_bar() {
    let data = data("");
    let tmux = start(data.path(), "trap4", 80, 24);
    tmux.text("Banco Nacional de Cuba");
    tmux.keys(&["Enter"]);
    tmux.wait_for_all(
        &[
            "for \"Banco Nacional de Cuba\"",
            "eu OLD (published",
            "│ lists: ",
        ],
        120,
    );
    tmux.text("Qzxqvj Wpfkrtz");
    tmux.keys(&["Enter"]);
    tmux.wait_for_all(
        &["No match at this threshold (searched", " entries of "],
        120,
    );
    quit(&tmux, data.path());
}

/// Trap 7: Batch dropped the input's other columns (a `customer_id`, a `country`) and
/// ignored `country` silently. Now every column reaches the table and the export, and the
/// UI says which columns it used (and as what) and which it only kept; `dob` and `country`
/// are weighed, each row's its own, as in the CLI's batch.
#[test]
fn batch_keeps_every_input_column_and_says_which_it_used() {
    let data = data("");
    let file = data.path().join("customers.csv");
    std::fs::write(
        &file,
        "customer_id,name,country\nC-001,Vladimir Putin,RU\nC-002,John Q Nobody,GB\n",
    )
    .unwrap();
    let tmux = start(data.path(), "trap7", 120, 40);
    leave_field(&tmux);
    tmux.keys(&["2"]);
    tmux.wait_for("Progress", 20);
    tmux.keys(&["l"]);
    tmux.wait_for("Batch file", 10);
    tmux.text(file.to_str().unwrap());
    tmux.keys(&["Enter"]);
    tmux.wait_for_all(
        &[
            "2 name(s) screened",
            "columns used: customer_id (as qid), name, country",
        ],
        120,
    );
    tmux.wait_for_all(&["customer_id", "C-001", "C-002"], 10);
    let export = data.path().join("out.csv");
    tmux.keys(&["x"]);
    tmux.wait_for("Export the rows", 10);
    tmux.text(export.to_str().unwrap());
    tmux.keys(&["Enter"]);
    tmux.wait_for("exported to", 30);
    let written = std::fs::read_to_string(&export).unwrap();
    assert!(
        written.starts_with("name,matches,best_score,screening_id,customer_id,country\n"),
        "{written}"
    );
    assert!(
        written.contains(",C-001,RU\n") && written.contains(",C-002,GB\n"),
        "{written}"
    );
    quit_from_commands(&tmux, data.path());
}

/// A listener on loopback standing for the internet: counts the connections it accepts and
/// answers each with an empty 200.
fn internet() -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let _ = conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        }
    });
    (port, count)
}

/// A data folder whose config sends feeds, list downloads and a webhook's deliveries to
/// `port`, with a screening's event waiting in the outbox for the webhook.
fn outward(port: u16, offline: bool) -> tempfile::TempDir {
    let data = data("");
    std::fs::write(
        data.path().join("ui.toml"),
        format!(
            "[ui]\noffline = {offline}\nfeeds = true\ndownloads = true\n\
             [briefs]\nfeeds = [{{ name = \"here\", url = \"http://127.0.0.1:{port}/feed\" }}]\n\
             [fetch]\nmirror = \"http://127.0.0.1:{port}/m\"\nretries = 0\n\
             [webhooks]\npoll_interval_ms = 100\n"
        ),
    )
    .unwrap();
    let url = format!("http://127.0.0.1:{port}/hook");
    cli(
        data.path(),
        &["webhooks", "create", &url, "--events", "screening.match"],
    );
    cli(data.path(), &["screen", "Vladimir Putin"]);
    data
}

/// Trap 6, all of it: `[ui] offline = true` guarantees that nothing leaves the machine, even
/// with feeds, list downloads and a webhook configured. The same set-up without `offline`
/// reaches the listener (so the set-up would be seen); with it, `u` on Lists and Briefs and
/// `t` on Webhooks send nothing, and the background neither reads the feed nor delivers.
#[test]
fn offline_true_sends_nothing_even_with_feeds_downloads_and_a_webhook_configured() {
    use std::sync::atomic::Ordering;
    let (port, count) = internet();
    let data = outward(port, false);
    let tmux = start(data.path(), "trap6-online", 80, 24);
    let begin = std::time::Instant::now();
    while count.load(Ordering::SeqCst) == 0 {
        assert!(
            begin.elapsed().as_secs() < 60,
            "nothing reached the listener"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    quit(&tmux, data.path());
    drop(tmux);

    let (port, count) = internet();
    let data = outward(port, true);
    let tmux = start(data.path(), "trap6-offline", 80, 24);
    leave_field(&tmux);
    tmux.keys(&["4"]);
    tmux.wait_for("Entries", 30);
    tmux.keys(&["u"]);
    tmux.wait_for("offline = true in the config", 10);
    tmux.keys(&["3"]);
    tmux.wait_for("3:Briefs]", 10);
    tmux.keys(&["u"]);
    tmux.wait_for("briefs fetched: ", 60);
    tmux.keys(&["7"]);
    tmux.wait_for("hook", 30);
    tmux.keys(&["t"]);
    tmux.wait_for("no webhook is called", 10);
    quit_from_commands(&tmux, data.path());
    assert_eq!(
        count.load(Ordering::SeqCst),
        0,
        "a connection left the machine"
    );
}

/// Trap 9: alerts stopped at 200 rows and were handled one at a time, each with its own
/// note. Now ↓ past the last row loads the next page, Space selects, and one note
/// acknowledges every alert selected.
#[test]
fn alerts_page_on_and_three_are_acknowledged_with_one_note() {
    let data = data("");
    let names: Vec<&str> = (0..205).map(|_| "Vladimir Putin").collect();
    let file = data.path().join("names.txt");
    std::fs::write(&file, names.join("\n")).unwrap();
    cli(data.path(), &["batch", file.to_str().unwrap(), "--store"]);
    let open = cli(
        data.path(),
        &["alerts", "--status", "open", "--limit", "500", "--json"],
    );
    let open: serde_json::Value = serde_json::from_str(&open).unwrap();
    let open = open["items"].as_array().map_or(0, Vec::len);
    assert!(open > 205, "{open} open alerts");
    let tmux = start(data.path(), "trap9", 80, 24);
    leave_field(&tmux);
    tmux.keys(&["6"]);
    tmux.wait_for("Alerts · open · 200+", 30);
    tmux.keys(&["G"]);
    tmux.wait_for("more: ↓ past the last row loads them", 10);
    tmux.keys(&["Down"]);
    tmux.wait_for(&format!("Alerts · open · {open} "), 30);
    tmux.keys(&["g", "Space", "Space", "Space"]);
    tmux.wait_for("3 SELECTED", 10);
    tmux.keys(&["a"]);
    tmux.wait_for("3 selected alerts: one note for all", 10);
    tmux.text("one customer, reviewed once");
    tmux.keys(&["Enter"]);
    tmux.wait_for("3 alerts are now acknowledged", 30);
    quit_from_commands(&tmux, data.path());
    let acknowledged: serde_json::Value = serde_json::from_str(&cli(
        data.path(),
        &["alerts", "--status", "acknowledged", "--json"],
    ))
    .unwrap();
    let items = acknowledged["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{acknowledged}");
}

/// List downloads are off until `[ui] downloads = true`: `u` on Lists says how to turn them
/// on, and nothing is downloaded.
#[test]
fn list_downloads_are_off_until_enabled() {
    let data = data("");
    let tmux = start(data.path(), "downloads-off", 80, 24);
    leave_field(&tmux);
    tmux.keys(&["4"]);
    tmux.wait_for("u downloads once [ui] downloads = true", 30);
    tmux.keys(&["u"]);
    tmux.wait_for("downloads are off: set downloads = true", 10);
    assert!(!tmux.pane().contains("update running"));
    quit_from_commands(&tmux, data.path());
}

/// Starts the UI as the OS user `user` (the reviewer its decisions are recorded as).
fn start_as(data: &Path, user: &str, name: &str) -> Tmux {
    let tmux = Tmux::new(name);
    let command = format!(
        "USER={user} SANCTIONS_CONFIG={0}/ui.toml {1} --data-dir {0}; echo $? > {0}/ui-exit-status",
        data.display(),
        env!("CARGO_BIN_EXE_sanctions"),
    );
    tmux.start_sized(&command, 80, 24);
    tmux.wait_for_all(&["1:Screen", "TYPING"], 20);
    tmux
}

/// Four-eyes review: alice's true match waits as a proposal that she cannot confirm herself;
/// bob opens the screening from the history, sees who proposed it and confirms with `c`
/// through the same y/n question. The audit log holds both entries.
#[test]
fn four_eyes_a_proposal_is_confirmed_by_a_second_reviewer_only() {
    let data = data("[review]\nfour_eyes = true\n");
    let tmux = start_as(data.path(), "alice", "fouryes1");
    tmux.text("Banco Nacional de Cuba");
    tmux.keys(&["Enter"]);
    tmux.wait_for("for \"Banco Nacional de Cuba\"", 120);
    tmux.keys(&["Down"]);
    tmux.wait_mode("REVIEW", 10);
    tmux.keys(&["t"]);
    tmux.wait_for("note (required)", 10);
    tmux.text("same bank");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Record true_match?", 10);
    tmux.keys(&["y"]);
    tmux.wait_for("awaiting a second reviewer", 20);
    tmux.keys(&["c"]);
    tmux.wait_for("note (required)", 10);
    tmux.text("mine");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Confirm the proposal?", 10);
    tmux.keys(&["y"]);
    tmux.wait_for("a second, different", 20);
    tmux.keys(&["q"]);
    assert_eq!(exit_status(&tmux, &data.path().join("ui-exit-status")), "0");
    drop(tmux);
    std::fs::remove_file(data.path().join("ui-exit-status")).unwrap();

    let tmux = start_as(data.path(), "bob", "fouryes2");
    leave_field(&tmux);
    tmux.keys(&["C-r"]);
    tmux.wait_for("Banco Nacional de Cuba", 20);
    tmux.keys(&["Enter"]);
    tmux.wait_for("for \"Banco Nacional de Cuba\"", 20);
    tmux.keys(&["Down"]);
    tmux.wait_mode("REVIEW", 10);
    tmux.keys(&["Enter"]);
    tmux.wait_for("proposed by alice, awaiting a second reviewer", 20);
    tmux.keys(&["c"]);
    tmux.wait_for("note (required)", 10);
    tmux.text("agreed");
    tmux.keys(&["Enter"]);
    let pane = tmux.wait_for_all(&["Confirm the proposal?", "by alice"], 10);
    assert!(pane.contains("CONFIRM"), "{pane}");
    tmux.keys(&["y"]);
    tmux.wait_for("verdict recorded: true_match", 20);
    tmux.keys(&["q"]);
    assert_eq!(exit_status(&tmux, &data.path().join("ui-exit-status")), "0");
    let audit = cli(data.path(), &["audit", "export", "--format", "json"]);
    let audit: serde_json::Value = serde_json::from_str(&audit).unwrap();
    let log: Vec<(&str, &str, &str)> = audit["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let field = |f: &str| d[f].as_str().unwrap_or_default();
            (field("actor"), field("to"), field("note"))
        })
        .collect();
    assert_eq!(log[0], ("alice", "proposed", "same bank"), "{audit}");
    assert_eq!(log[1].0, "bob", "{audit}");
    assert_eq!((log[1].1, log[1].2), ("true_match", "agreed"), "{audit}");
}
