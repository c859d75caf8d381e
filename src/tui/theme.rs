//! Styles, in the colour tier the terminal supports: 24-bit, 256, the 16 basic colours, or
//! none (`NO_COLOR`, a `dumb` terminal, or `[ui] colors = "none"`). The tier is detected from
//! `COLORTERM` and `TERM` unless the config names one; the theme (`dark` or `light`
//! background) picks shades that stay readable. Every meaning is also carried by text or a
//! symbol and by bold or reversed text, so the UI reads the same without any colour.

use std::sync::atomic::{AtomicU8, Ordering};

use ratatui::style::{Color, Modifier, Style};

pub use crate::config::ui::{Background, Tier};

// 0: not chosen yet (detected on first use); else 1 + tier * 2 + background.
static CHOSEN: AtomicU8 = AtomicU8::new(0);

const TIERS: [Tier; 4] = [Tier::None, Tier::Basic, Tier::Indexed, Tier::True];

/// Sets the tier and background of every style drawn from now on.
pub fn set(tier: Tier, background: Background) {
    let t = TIERS.iter().position(|x| *x == tier).unwrap_or(1) as u8;
    CHOSEN.store(1 + t * 2 + background as u8, Ordering::Relaxed);
}

/// The tier and background in use (detected from the environment if never set).
pub fn current() -> (Tier, Background) {
    match CHOSEN.load(Ordering::Relaxed) {
        0 => {
            let tier = Tier::from_env();
            set(tier, Background::Dark);
            (tier, Background::Dark)
        }
        n => {
            let n = n - 1;
            let background = if n % 2 == 1 {
                Background::Light
            } else {
                Background::Dark
            };
            (TIERS[usize::from(n / 2) % 4], background)
        }
    }
}

/// What a style means; each has a colour per tier and background.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Warn,
    Error,
    Accent,
    Ok,
}

/// The colour of `role` in `tier` on `background` (`None`: no colour).
pub fn colour(role: Role, tier: Tier, background: Background) -> Option<Color> {
    use Background::{Dark, Light};
    Some(match (tier, role, background) {
        (Tier::None, ..) => return None,
        (Tier::Basic, Role::Warn, Dark) => Color::Yellow,
        (Tier::Basic, Role::Warn, Light) => Color::Magenta,
        (Tier::Basic, Role::Error, _) => Color::Red,
        (Tier::Basic, Role::Accent, Dark) => Color::Cyan,
        (Tier::Basic, Role::Accent, Light) => Color::Blue,
        (Tier::Basic, Role::Ok, _) => Color::Green,
        (Tier::Indexed, Role::Warn, Dark) => Color::Indexed(214),
        (Tier::Indexed, Role::Warn, Light) => Color::Indexed(130),
        (Tier::Indexed, Role::Error, Dark) => Color::Indexed(203),
        (Tier::Indexed, Role::Error, Light) => Color::Indexed(160),
        (Tier::Indexed, Role::Accent, Dark) => Color::Indexed(81),
        (Tier::Indexed, Role::Accent, Light) => Color::Indexed(25),
        (Tier::Indexed, Role::Ok, Dark) => Color::Indexed(114),
        (Tier::Indexed, Role::Ok, Light) => Color::Indexed(28),
        (Tier::True, Role::Warn, Dark) => Color::Rgb(0xff, 0xb0, 0x3b),
        (Tier::True, Role::Warn, Light) => Color::Rgb(0xa0, 0x50, 0x00),
        (Tier::True, Role::Error, Dark) => Color::Rgb(0xff, 0x5f, 0x57),
        (Tier::True, Role::Error, Light) => Color::Rgb(0xc0, 0x1c, 0x28),
        (Tier::True, Role::Accent, Dark) => Color::Rgb(0x5f, 0xd7, 0xff),
        (Tier::True, Role::Accent, Light) => Color::Rgb(0x1a, 0x5f, 0xb4),
        (Tier::True, Role::Ok, Dark) => Color::Rgb(0x8a, 0xe2, 0x34),
        (Tier::True, Role::Ok, Light) => Color::Rgb(0x26, 0x7f, 0x00),
    })
}

/// The full style of `role` in `tier` on `background`: its colour (if any) and the modifier
/// that carries the meaning without colour.
pub fn style_of(role: Role, tier: Tier, background: Background) -> Style {
    let style = match colour(role, tier, background) {
        Some(c) => Style::default().fg(c),
        None => Style::default(),
    };
    match role {
        Role::Ok => style,
        Role::Warn | Role::Error | Role::Accent => style.add_modifier(Modifier::BOLD),
    }
}

fn style(role: Role) -> Style {
    let (tier, background) = current();
    style_of(role, tier, background)
}

/// The mode badge.
pub fn badge() -> Style {
    Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
}

/// Something that needs attention (open alerts, stale data).
pub fn warn() -> Style {
    style(Role::Warn)
}

/// An error.
pub fn error() -> Style {
    style(Role::Error)
}

/// The selected tab and headings.
pub fn accent() -> Style {
    style(Role::Accent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_is_detected_from_the_environment() {
        assert_eq!(Tier::detect(Some("1"), Some("truecolor"), None), Tier::None);
        assert_eq!(
            Tier::detect(Some(""), None, Some("xterm-256color")),
            Tier::Indexed
        );
        assert_eq!(Tier::detect(None, None, Some("dumb")), Tier::None);
        assert_eq!(
            Tier::detect(None, Some("truecolor"), Some("xterm")),
            Tier::True
        );
        assert_eq!(
            Tier::detect(None, Some("24bit"), Some("screen")),
            Tier::True
        );
        assert_eq!(
            Tier::detect(None, None, Some("tmux-256color")),
            Tier::Indexed
        );
        assert_eq!(Tier::detect(None, None, Some("xterm")), Tier::Basic);
        assert_eq!(Tier::detect(None, None, Some("linux")), Tier::Basic);
        assert_eq!(Tier::detect(None, None, None), Tier::Basic);
    }

    #[test]
    fn each_tier_uses_only_its_own_colours() {
        for background in [Background::Dark, Background::Light] {
            for role in [Role::Warn, Role::Error, Role::Accent, Role::Ok] {
                assert_eq!(colour(role, Tier::None, background), None);
                let basic = colour(role, Tier::Basic, background).unwrap();
                assert!(
                    !matches!(basic, Color::Indexed(_) | Color::Rgb(..)),
                    "{basic:?}"
                );
                assert!(matches!(
                    colour(role, Tier::Indexed, background),
                    Some(Color::Indexed(16..=255))
                ));
                assert!(matches!(
                    colour(role, Tier::True, background),
                    Some(Color::Rgb(..))
                ));
            }
        }
    }

    #[test]
    fn meaning_never_rests_on_colour_alone() {
        // Without colour the warnings, errors and headings still stand out by weight.
        for role in [Role::Warn, Role::Error, Role::Accent] {
            for tier in TIERS {
                let style = style_of(role, tier, Background::Dark);
                assert!(style.add_modifier.contains(Modifier::BOLD), "{role:?}");
            }
        }
        assert_eq!(
            style_of(Role::Error, Tier::None, Background::Light).fg,
            None
        );
    }
}
