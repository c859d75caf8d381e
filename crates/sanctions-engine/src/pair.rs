//! A pair of the alignment, shared by the scorer (`score`) and the cross-script pairing
//! (`abjad_pairs`): a leaf, so that neither imports the other for it.

use super::similarity::MatchKind;

/// A pair in the alignment: one or two adjacent query tokens (`query..query + query_len`)
/// met one or two adjacent listed tokens, with a similarity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pair {
    pub query: usize,
    pub query_len: usize,
    pub listed: usize,
    pub listed_len: usize,
    pub similarity: f32,
    pub how: MatchKind,
}

impl Pair {
    pub(crate) fn single(query: usize, listed: usize, similarity: f32, how: MatchKind) -> Pair {
        Pair {
            query,
            query_len: 1,
            listed,
            listed_len: 1,
            similarity,
            how,
        }
    }

    /// Whether this pair covers query token `qi`.
    /// Whether the pair joins words on either side (`al qaida` / `alqaida`).
    pub fn is_join(&self) -> bool {
        self.query_len > 1 || self.listed_len > 1
    }

    pub fn covers_query(&self, qi: usize) -> bool {
        (self.query..self.query + self.query_len).contains(&qi)
    }

    /// Whether this pair covers listed token `li`.
    pub fn covers_listed(&self, li: usize) -> bool {
        (self.listed..self.listed + self.listed_len).contains(&li)
    }
}
