//! Exit codes and the errors that carry one.

use std::process::ExitCode;

/// The documented exit codes (see the README).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything asked for was done (and, with `--fail-on-match`, nothing matched).
    Success = 0,
    /// A name matched (only with `--fail-on-match`).
    MatchFound = 1,
    /// Bad arguments, or a name with nothing to screen.
    Usage = 2,
    /// No data, an unreadable input, rows not screened, a failed import, an unknown entry, or
    /// a database or file system error.
    Data = 3,
    /// A requested list has no data (without `--allow-partial`).
    Partial = 4,
}

impl Exit {
    /// The word used in JSON errors.
    pub fn kind(self) -> &'static str {
        match self {
            Exit::Success => "success",
            Exit::MatchFound => "match_found",
            Exit::Usage => "usage",
            Exit::Data => "data",
            Exit::Partial => "partial_coverage",
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit as u8)
    }
}

/// A user error with its exit code: printed as a message, never with a backtrace.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    pub exit: Exit,
    pub message: String,
}

/// A usage error (exit 2).
pub fn usage(message: impl Into<String>) -> color_eyre::Report {
    Failure {
        exit: Exit::Usage,
        message: message.into(),
    }
    .into()
}

/// A data error (exit 3).
pub fn data(message: impl Into<String>) -> color_eyre::Report {
    Failure {
        exit: Exit::Data,
        message: message.into(),
    }
    .into()
}

/// Partial coverage refused (exit 4).
pub fn partial(message: impl Into<String>) -> color_eyre::Report {
    Failure {
        exit: Exit::Partial,
        message: message.into(),
    }
    .into()
}
