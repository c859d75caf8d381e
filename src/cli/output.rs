//! Output helpers shared by the commands: JSON and text on standard output, terminal-safe.
//! Every write goes through `write!`, so a closed pipe is an error `main` ends quietly on,
//! never a panic.

use std::io::Write;

use color_eyre::eyre::Result;
use serde::Serialize;

pub use crate::sanitize::field as safe;

/// Prints `value` as pretty JSON on standard output (bidi controls escaped).
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<()> {
    let text = crate::sanitize::json(serde_json::to_string_pretty(value)?);
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// One value as a JSON line made safe for a terminal (bidi controls escaped), without its
/// line break.
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> Result<String> {
    Ok(crate::sanitize::json(serde_json::to_string(value)?))
}

/// Writes text already made safe on standard output.
pub fn write_text(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// A warning on standard error: `warning: ...`, or `{"warning": ...}` with `--json`.
pub fn warn(message: &str, json: bool) {
    let mut err = std::io::stderr().lock();
    let _ = if json {
        writeln!(
            err,
            "{}",
            crate::sanitize::json(serde_json::json!({ "warning": message }).to_string())
        )
    } else {
        writeln!(err, "warning: {}", crate::sanitize::multiline(message))
    };
}

/// `31313` -> `31,313`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn groups_thousands() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(31313), "31,313");
        assert_eq!(super::thousands(1234567), "1,234,567");
    }
}
