//! Key remaps from the config's `[ui.keys]`: action names, key names, and the [`Keymap`]
//! they make. A remap that names an unknown action or key, or that would put two actions
//! on one key, is left out and reported (the UI starts with the rest), never a crash.

use std::collections::{BTreeMap, BTreeSet};

use crossterm::event::{KeyCode, KeyModifiers};

use super::keymap::{BINDINGS, Binding, Command, Keymap, Scope, key_name};
use crate::config::ui::Keys;

pub use super::keymap::command_name;

/// The command named `name` (any case; `-` for `_`).
pub fn command_by_name(name: &str) -> Option<Command> {
    let name = name.trim().to_ascii_lowercase().replace('-', "_");
    BINDINGS
        .iter()
        .map(|b| b.command)
        .find(|c| command_name(*c) == name)
}

/// A key written as in the README: `x`, `X`, `ctrl-x`, `alt-x`, `f2`, `esc`, `enter`, `tab`,
/// `shift-tab`, `space`, arrows, `pgup`, `pgdn`, `home`, `end`, `backspace`, `delete`.
pub fn parse_key(text: &str) -> Option<(KeyCode, KeyModifiers)> {
    let text = text.trim();
    let mut mods = KeyModifiers::NONE;
    let mut rest = text;
    loop {
        let lower = rest.to_ascii_lowercase();
        let prefix = ["ctrl-", "ctrl+", "c-"]
            .iter()
            .map(|p| (p, KeyModifiers::CONTROL))
            .chain(
                ["alt-", "alt+", "m-"]
                    .iter()
                    .map(|p| (p, KeyModifiers::ALT)),
            )
            .find(|(p, _)| lower.starts_with(**p) && rest.len() > p.len());
        match prefix {
            Some((p, m)) => {
                mods |= m;
                rest = &rest[p.len()..];
            }
            None => break,
        }
    }
    let mut chars = rest.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c.is_control() {
            return None;
        }
        if mods.contains(KeyModifiers::CONTROL) {
            return Some((KeyCode::Char(c.to_ascii_lowercase()), mods));
        }
        if c.is_uppercase() {
            mods |= KeyModifiers::SHIFT;
        }
        return Some((KeyCode::Char(c), mods));
    }
    let lower = rest.to_ascii_lowercase();
    let code = match lower.as_str() {
        "esc" | "escape" => KeyCode::Esc,
        "enter" | "return" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "shift-tab" | "backtab" => {
            mods |= KeyModifiers::SHIFT;
            KeyCode::BackTab
        }
        "space" => KeyCode::Char(' '),
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pgup" | "pageup" => KeyCode::PageUp,
        "pgdn" | "pagedown" => KeyCode::PageDown,
        "backspace" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        f if f.starts_with('f') => match f[1..].parse::<u8>() {
            Ok(n @ 1..=12) => KeyCode::F(n),
            _ => return None,
        },
        _ => return None,
    };
    Some((code, mods))
}

fn same_key(a: &Binding, b: &Binding) -> bool {
    let m = KeyModifiers::CONTROL | KeyModifiers::ALT;
    a.code == b.code && (a.mods & m) == (b.mods & m)
}

fn overlap(a: Scope, b: Scope) -> bool {
    a == b
        || matches!(
            (a, b),
            (Scope::Global | Scope::Navigation, _) | (_, Scope::Global | Scope::Navigation)
        )
}

/// Two bindings of different actions on one key where both apply.
fn clash(a: &Binding, b: &Binding) -> bool {
    a.command != b.command && same_key(a, b) && overlap(a.scope, b.scope)
}

/// The bindings of `command` on `keys`, in each place its default keys apply. A printable
/// key is never a command while a text field has focus.
fn rebind(command: Command, keys: &[(KeyCode, KeyModifiers)]) -> Vec<Binding> {
    let mut scopes: Vec<(Scope, &'static str)> = Vec::new();
    for b in BINDINGS.iter().filter(|b| b.command == command) {
        let scope = match b.scope {
            Scope::Global => Scope::Navigation,
            other => other,
        };
        if !scopes.iter().any(|(s, _)| *s == scope) {
            scopes.push((scope, b.help));
        }
    }
    let global = BINDINGS
        .iter()
        .any(|b| b.command == command && b.scope == Scope::Global);
    let mut out = Vec::new();
    for (scope, help) in scopes {
        for &(code, mods) in keys {
            let printable =
                matches!(code, KeyCode::Char(_)) && !mods.contains(KeyModifiers::CONTROL);
            let scope = if scope == Scope::Navigation && global && !printable {
                Scope::Global
            } else {
                scope
            };
            out.push(Binding {
                code,
                mods,
                scope,
                command,
                help,
            });
        }
    }
    out
}

fn build(remapped: &BTreeMap<String, (Command, Vec<Binding>)>) -> Vec<Binding> {
    let mut out = Vec::new();
    let mut done = BTreeSet::new();
    for b in BINDINGS {
        match remapped.iter().find(|(_, (c, _))| *c == b.command) {
            None => out.push(*b),
            Some((name, (_, new))) => {
                if done.insert(name.clone()) {
                    out.extend(new.iter().copied());
                }
            }
        }
    }
    out
}

/// The keymap of the defaults with `remaps` applied, and what was wrong with them (each
/// problem a sentence for the status bar; those remaps are left out).
pub fn keymap(remaps: &BTreeMap<String, Keys>) -> (Keymap, Vec<String>) {
    let mut problems = Vec::new();
    let mut remapped: BTreeMap<String, (Command, Vec<Binding>)> = BTreeMap::new();
    for (name, keys) in remaps {
        let Some(command) = command_by_name(name) else {
            problems.push(format!(
                "[ui.keys] {name:?}: no such action (the key table of docs/terminal-ui.md names them)"
            ));
            continue;
        };
        let names = keys.names();
        let parsed: Vec<_> = names.iter().map(|k| (k, parse_key(k))).collect();
        if let Some((bad, _)) = parsed.iter().find(|(_, p)| p.is_none()) {
            problems.push(format!("[ui.keys] {name}: unknown key {bad:?}"));
            continue;
        }
        if parsed.is_empty() {
            problems.push(format!("[ui.keys] {name}: no key given"));
            continue;
        }
        let keys: Vec<_> = parsed.into_iter().filter_map(|(_, p)| p).collect();
        let bindings = rebind(command, &keys);
        let twice = bindings.iter().enumerate().find(|(i, a)| {
            bindings[i + 1..]
                .iter()
                .any(|b| same_key(a, b) && a.scope == b.scope)
        });
        if let Some((_, a)) = twice {
            problems.push(format!("[ui.keys] {name}: {} given twice", key_name(a)));
            continue;
        }
        remapped.insert(name.clone(), (command, bindings));
    }
    // Leave out every remap in a clash until none is left (the defaults never clash).
    loop {
        let table = build(&remapped);
        let mut out: Vec<String> = Vec::new();
        for (i, a) in table.iter().enumerate() {
            for b in &table[i + 1..] {
                if !clash(a, b) {
                    continue;
                }
                for binding in [a, b] {
                    let found = remapped
                        .iter()
                        .find(|(_, (c, _))| *c == binding.command)
                        .map(|(n, _)| n.clone());
                    if let Some(name) = found
                        && !out.contains(&name)
                    {
                        let other = if std::ptr::eq(binding, a) { b } else { a };
                        problems.push(format!(
                            "[ui.keys] {name}: {} is already {} (left out)",
                            key_name(binding),
                            command_name(other.command)
                        ));
                        out.push(name);
                    }
                }
            }
        }
        if out.is_empty() {
            return (Keymap::new(table), problems);
        }
        for name in out {
            remapped.remove(&name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::state::Tab;
    use crossterm::event::KeyEvent;

    fn remaps(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Keys> {
        pairs
            .iter()
            .map(|(a, ks)| {
                (
                    (*a).to_owned(),
                    Keys::Many(ks.iter().map(|k| (*k).to_owned()).collect()),
                )
            })
            .collect()
    }

    fn press(text: &str) -> KeyEvent {
        let (code, mods) = parse_key(text).unwrap();
        KeyEvent::new(code, mods)
    }

    #[test]
    fn names_round_trip() {
        for b in BINDINGS {
            assert_eq!(command_by_name(&command_name(b.command)), Some(b.command));
        }
        assert_eq!(
            command_name(Command::FalsePositiveAll),
            "false_positive_all"
        );
        assert_eq!(command_name(Command::GoTab(3)), "tab_4");
        assert_eq!(command_by_name("Next-Tab"), Some(Command::NextTab));
        assert_eq!(
            parse_key("ctrl-R"),
            Some((KeyCode::Char('r'), KeyModifiers::CONTROL))
        );
        assert_eq!(
            parse_key("G"),
            Some((KeyCode::Char('G'), KeyModifiers::SHIFT))
        );
        assert_eq!(parse_key("F2"), Some((KeyCode::F(2), KeyModifiers::NONE)));
        assert_eq!(
            parse_key("-"),
            Some((KeyCode::Char('-'), KeyModifiers::NONE))
        );
        assert_eq!(parse_key("f13"), None);
        assert_eq!(parse_key("hyper-x"), None);
        assert_eq!(parse_key(""), None);
    }

    #[test]
    fn a_remap_moves_the_action_and_frees_its_old_key() {
        let (map, problems) = keymap(&remaps(&[
            ("quit", &["z", "ctrl-q"]),
            ("history", &["ctrl-h"]),
        ]));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            map.lookup(press("z"), Tab::Lists, false),
            Some(Command::Quit)
        );
        assert_eq!(map.lookup(press("q"), Tab::Lists, false), None);
        // A printable key is typed in a text field; a Ctrl key still works there.
        assert_eq!(map.lookup(press("z"), Tab::Screen, true), None);
        assert_eq!(
            map.lookup(press("ctrl-q"), Tab::Screen, true),
            Some(Command::Quit)
        );
        assert_eq!(
            map.lookup(press("ctrl-h"), Tab::Screen, true),
            Some(Command::History)
        );
        assert_eq!(map.lookup(press("ctrl-r"), Tab::Screen, true), None);
        assert!(map.hints(Tab::Screen).contains("Ctrl-H history"));
    }

    #[test]
    fn clashes_and_unknown_names_are_reported_and_left_out() {
        let (map, problems) = keymap(&remaps(&[
            ("quit", &["j"]),
            ("fly", &["z"]),
            ("help", &["hyper-h"]),
            ("sort", &["h"]),
        ]));
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(
            problems
                .iter()
                .any(|p| p.contains("quit: j is already down")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("\"fly\": no such action"))
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("unknown key \"hyper-h\""))
        );
        // `h` on the Batch tab already shows hits only.
        assert!(
            problems
                .iter()
                .any(|p| p.contains("sort: h is already toggle_hits")),
            "{problems:?}"
        );
        // The defaults stay for what was left out.
        assert_eq!(
            map.lookup(press("q"), Tab::Lists, false),
            Some(Command::Quit)
        );
        assert_eq!(
            map.lookup(press("j"), Tab::Lists, false),
            Some(Command::Down)
        );
        assert_eq!(
            map.lookup(press("s"), Tab::Batch, false),
            Some(Command::Sort)
        );
    }

    #[test]
    fn a_key_given_twice_is_reported() {
        let (map, problems) = keymap(&remaps(&[("load", &["z", "z"])]));
        assert_eq!(problems, ["[ui.keys] load: z given twice"]);
        assert_eq!(
            map.lookup(press("l"), Tab::Batch, false),
            Some(Command::Load)
        );
    }

    #[test]
    fn two_actions_may_swap_keys() {
        let (map, problems) = keymap(&remaps(&[("up", &["up", "j"]), ("down", &["down", "k"])]));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(map.lookup(press("j"), Tab::Lists, false), Some(Command::Up));
        assert_eq!(
            map.lookup(press("k"), Tab::Lists, false),
            Some(Command::Down)
        );
        assert_eq!(
            map.lookup(press("up"), Tab::Screen, true),
            Some(Command::Up)
        );
    }

    #[test]
    fn a_remap_onto_another_actions_key_in_another_tab_is_fine() {
        // `a` adds on the Watchlist and Webhooks tabs and acknowledges on Alerts.
        let (map, problems) = keymap(&remaps(&[("acknowledge", &["A"])]));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            map.lookup(press("A"), Tab::Alerts, false),
            Some(Command::Acknowledge)
        );
        assert_eq!(map.lookup(press("a"), Tab::Alerts, false), None);
        assert_eq!(
            map.lookup(press("a"), Tab::Watchlist, false),
            Some(Command::Add)
        );
    }

    // The default table itself.
    mod defaults {
        use crate::tui::keymap::*;
        use crate::tui::state::Tab;
        use Command as C;
        use KeyCode as K;
        use Scope as S;
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        const NONE: KeyModifiers = KeyModifiers::NONE;
        const CTRL: KeyModifiers = KeyModifiers::CONTROL;

        fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
            KeyEvent::new(code, mods)
        }

        #[test]
        fn printable_keys_are_typed_in_text_fields() {
            assert_eq!(lookup(key(K::Char('q'), NONE), Tab::Screen, true), None);
            assert_eq!(
                lookup(key(K::Char('q'), NONE), Tab::Screen, false),
                Some(C::Quit)
            );
            assert_eq!(
                lookup(key(K::Char('c'), CTRL), Tab::Screen, true),
                Some(C::Quit)
            );
            assert_eq!(
                lookup(key(K::Char('t'), CTRL), Tab::Screen, true),
                Some(C::ToggleType)
            );
            assert_eq!(
                lookup(key(K::Char('t'), NONE), Tab::Screen, false),
                Some(C::TrueMatch)
            );
        }

        #[test]
        fn no_key_is_bound_twice_in_one_place() {
            for (i, a) in BINDINGS.iter().enumerate() {
                for b in &BINDINGS[i + 1..] {
                    let overlap = a.scope == b.scope
                        || matches!(
                            (a.scope, b.scope),
                            (S::Global | S::Navigation, _) | (_, S::Global | S::Navigation)
                        );
                    assert!(
                        !(overlap && a.code == b.code && a.mods == b.mods),
                        "{} bound twice",
                        key_name(a)
                    );
                }
            }
        }
    }
}
