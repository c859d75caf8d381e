//! A request's name read as [`super::screen_one`] reads it (typed facts taken out, the two
//! ways a name can be read, its tokens), once for the checks of a list update that each read
//! it: whether a moved word weighs in it ([`super::WeightDrift::moves_query`]) and how high it
//! can score against the changed entries ([`super::ChangedEntries::reach_from`]).

use super::facts::{self, QueryFacts};
use super::normalize::Token;
use super::{KindFilter, MAX_NAME_CHARS, Request, alternatives, literal};

/// A request's name as the engine reads it.
pub struct ReadName {
    /// Nothing to read (empty) or longer than the engine reads.
    pub(crate) refused: bool,
    /// Two readings (a part in another script, a word split): screened each alone.
    pub(crate) several: bool,
    /// A date of birth or a country typed into the name.
    pub(crate) typed: QueryFacts,
    /// Read literally (`DAS, V.`): each word meets only its own spelling.
    pub(crate) literal: bool,
    pub(crate) tokens: Vec<Token>,
}

impl ReadName {
    /// `request`'s name, read once.
    pub fn of(request: &Request) -> ReadName {
        let name = request.name.trim();
        let refused = name.is_empty() || name.chars().count() > MAX_NAME_CHARS;
        let several = alternatives::readings(name).len() > 1;
        let mut read = ReadName {
            refused,
            several,
            typed: QueryFacts::default(),
            literal: false,
            tokens: Vec::new(),
        };
        if several {
            return read;
        }
        let (extracted, typed) = facts::extract(name);
        let name = if extracted.trim().is_empty() {
            name.to_owned()
        } else {
            extracted
        };
        let organisation = request.kind != Some(KindFilter::Individual);
        read.typed = typed;
        (read.tokens, read.literal) = literal::read(&name, organisation);
        read
    }
}
