//! The tmux harness of the end-to-end UI tests: one tmux server on its own socket per test
//! (its name, the process id and a counter), keys in, `capture-pane` out, conditions waited on
//! (never fixed sleeps).
#![allow(dead_code, clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// One tmux server on its own socket, killed on drop.
pub struct Tmux {
    pub socket: String,
}

impl Tmux {
    pub fn new(name: &str) -> Tmux {
        let has = Command::new("tmux").arg("-V").output();
        assert!(
            has.is_ok_and(|o| o.status.success()),
            "tmux is needed for the end-to-end UI tests (apt-get install -y tmux)"
        );
        // The tests of the binary share its process (and its id): a counter keeps each
        // server's socket its own even if two tests chose the same name.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Tmux {
            socket: format!("sanctions-{name}-{}-{n}", std::process::id()),
        }
    }

    /// Runs `command` in a new 100x30 session `t`, with no escape delay and the pane kept
    /// after the program exits (so what the shell echoed after it can be read).
    pub fn start(&self, command: &str) {
        self.start_sized(command, 100, 30);
    }

    /// Runs `command` in a new session `t` of `width` x `height`.
    pub fn start_sized(&self, command: &str, width: u16, height: u16) {
        let (w, h) = (width.to_string(), height.to_string());
        self.run(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &w,
            "-y",
            &h,
            "sh",
            "-c",
            command,
        ]);
        self.run(&["set-option", "-g", "escape-time", "0"]);
        self.run(&["set-option", "-g", "remain-on-exit", "on"]);
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    pub fn text(&self, text: &str) {
        self.run(&["send-keys", "-t", "t", "-l", text]);
    }

    pub fn pane(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// Waits until the pane shows `needle`, failing with the pane after `secs`.
    pub fn wait_for(&self, needle: &str, secs: u64) -> String {
        self.wait_for_all(&[needle], secs)
    }

    /// Waits until the status bar's keyboard mode is `mode` (`TYPING`, `REVIEW`, `CONFIRM`,
    /// `COMMANDS`): the label sits between two spaces each side there, unlike the same word in
    /// a border's hint, so a key sent after this goes to the new mode, not the old one.
    pub fn wait_mode(&self, mode: &str, secs: u64) -> String {
        self.wait_for(&mode_label(mode), secs)
    }

    /// Waits until the pane no longer shows `needle` (a view closed), failing after `secs`.
    pub fn wait_gone(&self, needle: &str, secs: u64) {
        self.wait_until(&format!("{needle:?} did not go"), secs, |pane| {
            !pane.contains(needle)
        });
    }

    /// The status bar's keyboard mode now, if a known one is shown.
    pub fn mode(&self) -> Option<&'static str> {
        let pane = self.pane();
        ["TYPING", "REVIEW", "CONFIRM", "COMMANDS"]
            .into_iter()
            .find(|mode| pane.contains(&mode_label(mode)))
    }

    /// Waits until the pane shows every one of `needles` at once (under load a capture can
    /// catch a frame half written), failing with the pane after `secs`.
    pub fn wait_for_all(&self, needles: &[&str], secs: u64) -> String {
        let failure = format!("{needles:?} did not all appear");
        self.wait_until(&failure, secs, |pane| {
            needles.iter().all(|n| pane.contains(n))
        })
    }

    /// Waits until the pane passes `test` and returns it, failing with `failure` and the
    /// pane after `secs`.
    fn wait_until(&self, failure: &str, secs: u64, test: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let pane = self.pane();
            if test(&pane) {
                return pane;
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "{failure}; the pane shows:\n{pane}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// How the status bar shows keyboard mode `mode`: between two spaces each side.
fn mode_label(mode: &str) -> String {
    format!("  {mode}  ")
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// Imports `lists` into `data`, and writes `data/offline.toml`: a config that reads no
/// risk-brief feed (the defaults are on the internet; tests talk to loopback only).
pub fn import(data: &Path, lists: &Path) {
    std::fs::write(data.join("offline.toml"), "[briefs]\nfeeds = []\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sanctions"))
        .arg("--data-dir")
        .arg(data)
        .args(["lists", "import"])
        .arg(lists)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Waits for the shell's `echo $? > FILE` after the UI quits (answering "Quit anyway?" if
/// work still runs): tmux 3.3 under load may never show a dead pane's last output.
pub fn exit_status(tmux: &Tmux, status: &Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(code) = std::fs::read_to_string(status)
            && code.ends_with('\n')
        {
            return code.trim().to_owned();
        }
        let pane = tmux.pane();
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the UI did not exit; the pane shows:\n{pane}"
        );
        if pane.contains("Quit anyway") {
            tmux.keys(&["y"]);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
