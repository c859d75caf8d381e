//! The texts the handlers' `#[utoipa::path]` attributes share (tags, the scopes' descriptions
//! and refusals, common responses): below both the handlers and [`super::openapi`], which
//! gathers their operations, so that neither imports the other.

/// The tag of the operations of the published interface.
pub(super) const INTERFACE: &str = "interface";
/// The tag of our extensions, beyond the published interface.
pub(super) const EXTENSIONS: &str = "extensions";

/// An operation's description and the meaning of its 403, for the scope it needs.
macro_rules! scope_texts {
    ($($needs:ident, $forbidden:ident, $scope:literal;)*) => {$(
        pub(super) const $needs: &str = concat!(
            "Needs the `", $scope, "` scope; reads and changes only the key's account's data."
        );
        pub(super) const $forbidden: &str = concat!(
            "The key lacks the `", $scope, "` scope (the message names it: `this key lacks the `",
            $scope, "` scope`), or the account's plan does not allow the operation, or its \
             month's credits are used up."
        );
    )*};
}

scope_texts! {
    NEEDS_SCREEN, FORBIDDEN_SCREEN, "screen";
    NEEDS_REVIEW, FORBIDDEN_REVIEW, "review";
    NEEDS_WATCHLIST, FORBIDDEN_WATCHLIST, "watchlist";
    NEEDS_WEBHOOKS, FORBIDDEN_WEBHOOKS, "webhooks";
    NEEDS_AUDIT, FORBIDDEN_AUDIT, "audit";
    NEEDS_ADMIN, FORBIDDEN_ADMIN, "admin";
}

/// The 429 of the operations limited per account per hour as well.
pub(super) const TOO_MANY_EXPENSIVE: &str = "Over the plan's requests per minute, or over this \
    operation's own limit per account per hour (6); with `Retry-After`.";

/// The 304 of the answers that carry an `ETag`.
pub(super) const NOT_MODIFIED: &str =
    "Not modified: `If-None-Match` names the current `ETag`; no body.";

/// The 422 of a single screening.
pub(super) const SCREEN_422: &str = "A well-formed value that is not allowed, naming the \
    field: a blank or over-long `name`, a `threshold` over 100, a `limit` out of 1-500, a \
    `date_of_birth` whose day the month lacks.";
