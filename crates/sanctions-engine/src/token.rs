//! The tokens normalisation produces: a leaf that the modules comparing tokens
//! (`similarity`, `joins`) name without importing normalisation.

/// What a token is, which decides how much it weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TokenKind {
    /// An ordinary name word.
    Word,
    /// A single letter: an initial.
    Initial,
    /// A canonical organisation legal form (`llc`, `jsc`, ...): weak evidence.
    Legal,
    /// A name particle (`al`, `bin`, `abu`, `de`, `van`, ...): weak evidence.
    Particle,
    /// Digits (vessel numbers, "2" in "Arctic LNG 2").
    Number,
}

/// One normalised token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The form compared: lower-case ASCII letters and digits.
    pub text: String,
    /// For a legal form, the words it was read from (`ooo`), in case it was a name after all.
    pub raw: String,
    pub kind: TokenKind,
    /// Written in an abjad (Arabic, Hebrew): compared by consonant skeleton too.
    pub abjad: bool,
    /// The word as written, when not in Latin letters (`أسامة` for `smh`): what an explanation
    /// shows. Empty for Latin words, whose `text` reads as typed.
    pub written: String,
}

/// Whether `word` is in the form normalisation gives a word written in Latin letters (a
/// token's `text`): lower-case ASCII letters and digits, nothing else.
pub(crate) fn is_normal_word(word: &str) -> bool {
    !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}
