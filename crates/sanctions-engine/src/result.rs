//! What the engine takes and gives back, in domain terms: a screening [`Request`] and its
//! [`Screening`] (every [`Hit`] with a typed [`Explanation`]). Wire shapes live in `api`;
//! `service::mapping` converts.

use crate::model::{EntityFacts, EntityKind, ListCode};

/// Which kinds of entry a request wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindFilter {
    /// People only.
    Individual,
    /// Everything that is not a person: organisations, vessels, aircraft.
    Entity,
}

impl KindFilter {
    /// Whether an entry of `kind` passes the filter.
    pub fn accepts(self, kind: EntityKind) -> bool {
        match self {
            KindFilter::Individual => kind == EntityKind::Individual,
            KindFilter::Entity => kind != EntityKind::Individual,
        }
    }
}

/// A request to screen one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub name: String,
    pub kind: Option<KindFilter>,
    /// Lowest score reported (0-100); [`super::DEFAULT_THRESHOLD`] when absent.
    pub threshold: Option<u8>,
    /// Most hits reported; [`super::DEFAULT_LIMIT`] when absent.
    pub limit: Option<usize>,
    /// Only these lists; all when absent.
    pub lists: Option<Vec<ListCode>>,
    /// Also report entries whose listing has ended (a past debarment end date).
    pub include_ended: bool,
    /// `YYYY`, `YYYY-MM` or `YYYY-MM-DD`: weighed against the listed dates of birth.
    pub date_of_birth: Option<String>,
    /// ISO 3166-1 alpha-2 or a country's name: weighed against nationalities and countries.
    pub country: Option<String>,
}

impl Request {
    /// A request for `name` with every option at the engine's default.
    pub fn new(name: impl Into<String>) -> Request {
        Request {
            name: name.into(),
            kind: None,
            threshold: None,
            limit: None,
            lists: None,
            include_ended: false,
            date_of_birth: None,
            country: None,
        }
    }
}

/// The outcome of screening one name.
#[derive(Debug, Clone, PartialEq)]
pub struct Screening {
    /// Every entry at or above the threshold, however many are reported.
    pub total: usize,
    /// The best entries, highest score first, at most the request's limit.
    pub hits: Vec<Hit>,
    /// How near the closest miss came: the highest final score, unrounded (the name score
    /// x 100 plus the facts' points), of the entries scored that stayed below the threshold;
    /// `None` when none was scored. What the watchlist keeps to know which favorites a
    /// change of the token weights can carry over the threshold (`WeightDrift`).
    pub nearest_below: Option<f32>,
    /// The lowest final score, unrounded, of the entries at or above the threshold (all of
    /// them, reported or not); `None` when none reached it.
    pub lowest_hit: Option<f32>,
}

/// One listed entry that matched, through its best name.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The entry's position in the index it was screened against.
    pub entity: u32,
    /// `<list code>:<id>`.
    pub entity_id: String,
    pub list: ListCode,
    pub kind: EntityKind,
    /// The entry's primary name.
    pub primary_name: String,
    /// The primary name or alias that matched best.
    pub matched_name: String,
    /// ISO 3166-1 alpha-2 of the entry's main country, when known.
    pub country: Option<String>,
    /// 0-100: the name's score with the date of birth's and country's points.
    pub score: u8,
    pub explanation: Explanation,
    /// The last day of a listing that has ended (only with [`Request::include_ended`]).
    pub ended_on: Option<String>,
    /// Dates of birth, nationalities, programmes and listing date: what tells two
    /// same-named people apart.
    pub facts: EntityFacts,
}

/// Why an entry matched: the token alignment, and the secondary facts weighed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Explanation {
    /// Each query token with its listed partner (or none), then each listed token left over.
    pub tokens: Vec<TokenPair>,
    /// Facts other than the name that moved the score.
    pub evidence: Vec<Evidence>,
}

/// One step of the alignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenPair {
    /// The query's token(s), normalised (a word not in Latin letters as it was written);
    /// `None` for a listed token with no partner.
    pub query: Option<String>,
    /// The listed token(s), normalised; `None` for a query token with no partner.
    pub listed: Option<String>,
    /// 0-100.
    pub similarity: u8,
    pub kind: MatchKind,
}

/// How a query token met a listed token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    /// Spelt a typo or two apart.
    Fuzzy,
    /// The same sound in another transliteration.
    Phonetic,
    /// An initial of the other word.
    Initial,
    /// Adjacent words of one side written as one word on the other (or the whole names
    /// compared as one string).
    Joined,
    /// Written in different scripts, with the same consonant skeleton (`محمد` / `Muhammad`).
    Skeleton,
    /// Written in different scripts, the one a spelling of the other that the lists' own
    /// bilingual entries give (the cross-script lexicon: `محمد` / `Mohammed`).
    Lexicon,
    /// No partner.
    Unmatched,
}

impl MatchKind {
    /// The word used in explanations and in the wire format.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Fuzzy => "fuzzy",
            MatchKind::Phonetic => "phonetic",
            MatchKind::Initial => "initial",
            MatchKind::Joined => "joined",
            MatchKind::Skeleton => "skeleton",
            MatchKind::Lexicon => "lexicon",
            MatchKind::Unmatched => "unmatched",
        }
    }
}

/// A fact other than the name, compared with what the list says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    pub fact: Fact,
    /// What the request said.
    pub query: String,
    /// What the list says (the closest listed value), when it says anything.
    pub listed: Option<String>,
    pub verdict: Verdict,
    /// Score points added (positive) or taken away (negative).
    pub points: i8,
}

/// Which secondary fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    DateOfBirth,
    Country,
}

/// How a secondary fact compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The list agrees.
    Agrees,
    /// Close but not the same (a year off by one).
    Close,
    /// The list says otherwise.
    Conflicts,
    /// The list says nothing about it.
    Unknown,
}
