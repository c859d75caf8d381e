//! Words written apart in Arabic script that the lists romanise as one Latin word
//! (`نعمت الله` / `Nematullah`, `شمس الدين` / `Shamsuddin`, `الحسن` / `Elhassan`): which
//! adjacent tokens may be joined, and the text of each join. Used by the query, the scorer
//! (a Latin query word against listed abjad words) and the lexicon's learner.

use super::token::{Token, TokenKind};

/// The ways the abjad words from token `i` on may be one word in Latin letters, as (tokens
/// covered, the words joined): Persian and Pashto write apart what the lists romanise as one
/// word (`نعمت الله` / `Nematullah`), an article between written with its `l` or without
/// (assimilated: `شمس الدين` / `Shamsuddin`, `صلاح الدين` / `Salahaldin`), and `عبد` joined
/// to what follows (`عبد الرحمن` / `Abdurrahman`, `Abdelrahman`), the article joined to its
/// word (`الحسن` / `Elhassan`). Only two name words (or `عبد` or the article and one) are
/// joined: a longer run is a name of several words.
pub fn abjad_joins(tokens: &[Token], i: usize) -> Vec<(usize, String)> {
    let unit = |k: usize| {
        tokens.get(k).map(|t| JoinUnit {
            text: &t.text,
            word: t.abjad && t.kind == TokenKind::Word,
            abd: t.kind == TokenKind::Particle && t.written == "عبد",
            article: t.kind == TokenKind::Particle && t.text == "al",
        })
    };
    joins_of(unit, i)
}

/// A token as [`joins_of`] reads it: its text, whether it is a word written in an abjad,
/// the particle `عبد`, or the article.
#[derive(Debug, Clone, Copy)]
pub struct JoinUnit<'a> {
    pub text: &'a str,
    pub word: bool,
    pub abd: bool,
    pub article: bool,
}

/// [`abjad_joins`] over any run of tokens (`unit(k)` is token `k`, `None` past the end): the
/// query's tokens, or a listed name's (a Latin query word meeting listed abjad words).
pub fn joins_of<'a>(
    unit: impl Fn(usize) -> Option<JoinUnit<'a>>,
    i: usize,
) -> Vec<(usize, String)> {
    let Some(first) = unit(i) else {
        return Vec::new();
    };
    // The article and the word it is written onto, which Latin names often write as one
    // word (`الحسن` / `Elhassan`, `الصيد` / `Elsseid`).
    if first.article {
        return match unit(i + 1) {
            Some(next) if next.word => vec![(2, format!("al{}", next.text))],
            _ => Vec::new(),
        };
    }
    let head = if first.word {
        first.text
    } else if first.abd {
        "abd"
    } else {
        return Vec::new();
    };
    match (unit(i + 1), unit(i + 2)) {
        (Some(next), _) if next.word => vec![(2, format!("{head}{}", next.text))],
        (Some(article), Some(next)) if article.article && next.word => {
            vec![
                (3, format!("{head}{}", next.text)),
                (3, format!("{head}l{}", next.text)),
            ]
        }
        _ => Vec::new(),
    }
}
