//! The World Bank's name texts: footnote markers, registration parentheticals, titles and the
//! "also known as / formerly known as / d/b/a" and non-Latin parts of `SUPP_NAME` and
//! `ADD_SUPP_INFO`.

use crate::model::{Alias, clean};
use crate::text::{merge_legal_forms, script_of, strip_prefix_lowercase};

/// Leading titles removed from names (`MR. IYKE AMBROSE` -> `IYKE AMBROSE`).
const TITLES: &[&str] = &["MRS.", "MR.", "MS.", "DR.", "ENGR."];

/// Alias markers, lowercase, longest first where one is a prefix of another, with the kind.
const MARKERS: &[(&str, &str)] = &[
    ("also known as", "aka"),
    ("formerly known as", "fka"),
    ("previously known as", "fka"),
    ("now known as", "nka"),
    ("currently known as", "nka"),
    ("also doing business under", "dba"),
    ("also doing business as", "dba"),
    ("currently doing business as", "dba"),
    ("doing business as", "dba"),
    ("formerly operating as", "fka"),
    ("currently d/b/a", "dba"),
    ("also d/b/a", "dba"),
    ("also dba", "dba"),
    ("d/b/a", "dba"),
    ("dba", "dba"),
    ("a.k.a.", "aka"),
    ("a.k.a", "aka"),
    ("aka", "aka"),
    ("f/k/a", "fka"),
    ("f.k.a.", "fka"),
    ("f.k.a", "fka"),
    ("fka", "fka"),
    ("n/k/a", "nka"),
    ("formerly", "fka"),
    ("also", "aka"),
];

/// Words that make a comma part only a legal form (`Co., Ltd.`), kept with the part before.
const LEGAL_WORDS: &[&str] = &[
    "ltd", "limited", "inc", "llc", "co", "corp", "sa", "s.a", "jsc", "gmbh", "plc", "ltda",
    "s.r.l", "sac", "s.a.c", "pvt", "llp", "bv", "b.v", "cjsc",
];

/// What one piece of a name text is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Other names, after an alias marker or in a non-Latin script.
    Aliases(Vec<Alias>),
    /// A registration or tax number parenthetical (`Reg. No. 1859937`).
    Registration(String),
    /// Anything else (kept as information).
    Other(String),
}

/// A name text split into its parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameText {
    /// The text outside alias and registration parentheticals, footnotes removed.
    pub rest: String,
    pub pieces: Vec<Piece>,
    /// Footnote numbers (`*356` -> `356`).
    pub footnotes: Vec<String>,
}

/// Splits `text` into footnotes, parenthesised and bare pieces. Parentheticals that are
/// neither aliases nor registrations stay in `rest` (`SHARDA IMPEX (U.K.) LTD.`).
pub fn split(text: &str) -> NameText {
    let (text, footnotes) = strip_footnotes(text);
    let mut out = NameText {
        footnotes,
        ..NameText::default()
    };
    let mut rest = String::new();
    let mut bare = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, ch)) = chars.next() {
        if ch != '(' && ch != '（' {
            bare.push(ch);
            continue;
        }
        let end = closing_paren(&text[i..]).map(|e| i + e);
        let inner_end = end.unwrap_or(text.len());
        let inner = &text[i + ch.len_utf8()..inner_end];
        let closing_len = end
            .and_then(|e| text[e..].chars().next())
            .map_or(0, char::len_utf8);
        match classify(inner) {
            Piece::Other(_) => bare.push_str(&text[i..(inner_end + closing_len).min(text.len())]),
            piece => {
                flush_bare(&mut bare, &mut rest, &mut out.pieces);
                out.pieces.push(piece);
            }
        }
        while chars
            .peek()
            .is_some_and(|(j, _)| *j < inner_end + closing_len)
        {
            chars.next();
        }
    }
    flush_bare(&mut bare, &mut rest, &mut out.pieces);
    out.rest = clean(&rest);
    out
}

/// Bare text is an alias piece when it starts with a marker or is non-Latin, else kept.
fn flush_bare(bare: &mut String, rest: &mut String, pieces: &mut Vec<Piece>) {
    match classify(bare) {
        Piece::Other(_) => rest.push_str(bare),
        piece => {
            pieces.push(piece);
            rest.push(' ');
        }
    }
    bare.clear();
}

/// The byte offset of the parenthesis closing the one `text` starts with.
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, ch) in text.char_indices() {
        match ch {
            '(' | '（' => depth += 1,
            ')' | '）' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Removes `*356`, `* 30`, `*219,  *328` and the leftover `and 45` of `* 43 and 45`.
fn strip_footnotes(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut notes = Vec::new();
    let mut rest = text;
    while let Some(star) = rest.find('*') {
        out.push_str(&rest[..star]);
        let after = rest[star + 1..].trim_start();
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        rest = &after[digits.len()..];
        if !digits.is_empty() {
            notes.push(digits);
        }
        let more = rest.trim_start_matches([',', ' ']);
        let more = more.strip_prefix("and ").unwrap_or(more).trim_start();
        let extra: String = more.chars().take_while(char::is_ascii_digit).collect();
        if !extra.is_empty() && rest.trim_start().starts_with(['a', ',']) {
            notes.push(extra.clone());
            rest = &more[extra.len()..];
        }
    }
    out.push_str(rest);
    (out, notes)
}

/// What one piece of text is.
pub fn classify(text: &str) -> Piece {
    let text = clean(text.trim_matches(|c: char| c.is_whitespace() || ",;:-–".contains(c)));
    let lower = text.to_lowercase();
    if is_registration(&text, &lower) {
        return Piece::Registration(text);
    }
    if let Some((marker, kind)) = MARKERS.iter().find(|(m, _)| starts_with_word(&lower, m)) {
        let body = strip_prefix_lowercase(&text, marker).unwrap_or_default();
        return Piece::Aliases(split_names(body, kind, marker.contains("business")));
    }
    if text.chars().any(is_non_latin_letter) {
        let aliases = text
            .split([',', '，', '、'])
            .filter_map(|p| clean_name(p).map(|n| non_latin_alias(&n)))
            .collect();
        return Piece::Aliases(aliases);
    }
    Piece::Other(text)
}

fn starts_with_word(lower: &str, marker: &str) -> bool {
    lower
        .strip_prefix(marker)
        .is_some_and(|after| after.is_empty() || after.starts_with([' ', ':', '(']))
}

fn is_registration(text: &str, lower: &str) -> bool {
    const PREFIXES: &[&str] = &["reg", "tax", "tin ", "id:", "id no", "lic."];
    PREFIXES.iter().any(|p| lower.starts_with(p))
        || (!text.contains(' ')
            && text.chars().any(|c| c.is_ascii_digit())
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-/.".contains(c)))
}

/// Splits the text after a marker into names: on ` or `, on ` and ` after "doing business ...",
/// on further markers and on commas, keeping legal-form-only comma parts (`Co., Ltd.`).
fn split_names(body: &str, kind: &str, split_and: bool) -> Vec<Alias> {
    let body = nested_markers_to_commas(body);
    let mut names = Vec::new();
    for part in body.split(" or ") {
        let parts: Vec<&str> = if split_and {
            part.split(" and ").collect()
        } else {
            vec![part]
        };
        for part in parts {
            for piece in merge_legal_forms(
                part.split(',').map(|p| p.trim_matches(['[', ']'])),
                is_legal_form,
            ) {
                let piece = strip_marker(&piece);
                let lower = piece.to_lowercase();
                if is_registration(piece.trim(), lower.trim()) {
                    continue;
                }
                if let Some(name) = clean_name(&piece) {
                    names.push(Alias {
                        kind: Some(kind.to_owned()),
                        ..Alias::new(name)
                    });
                }
            }
        }
    }
    names
}

/// Turns `(` before a marker, `(dba)` and ` also dba ` into commas, and drops unbalanced
/// parentheses: `CompuAids (doing business as (dba) X also dba Y` -> `CompuAids , X , Y`.
fn nested_markers_to_commas(body: &str) -> String {
    let mut text = body.replace("(dba)", ",").replace(" also dba ", ", ");
    let mut i = 0;
    while let Some(pos) = text[i..].find('(').map(|p| p + i) {
        let after = text[pos + 1..].to_lowercase();
        if MARKERS.iter().any(|(m, _)| starts_with_word(&after, m)) {
            text.replace_range(pos..pos + 1, ",");
        }
        i = pos + 1;
    }
    let opens = text.matches('(').count();
    let closes = text.matches(')').count();
    if opens != closes {
        text = text.replace(['(', ')'], ",");
    }
    text
}

/// Removes a marker a part starts with (`also dba ESS Group` -> `ESS Group`).
fn strip_marker(text: &str) -> String {
    let trimmed = text.trim();
    let lower = trimmed.to_lowercase();
    match MARKERS.iter().find(|(m, _)| starts_with_word(&lower, m)) {
        Some((m, _)) => strip_prefix_lowercase(trimmed, m)
            .unwrap_or_default()
            .to_owned(),
        None => trimmed.to_owned(),
    }
}

fn is_legal_form(part: &str) -> bool {
    let words: Vec<String> = part
        .split_whitespace()
        .map(|w| w.trim_end_matches('.').to_lowercase())
        .collect();
    !words.is_empty() && words.len() <= 2 && words.iter().all(|w| LEGAL_WORDS.contains(&w.as_str()))
}

/// A cleaned name without a leading title, or `None` when too short to be a name.
fn clean_name(text: &str) -> Option<String> {
    let trimmed = text.trim_matches(|c: char| c.is_whitespace() || ",;:[]".contains(c));
    let name = strip_title(&clean(trimmed)).0;
    (name.chars().count() >= 2).then_some(name)
}

/// Removes a leading title (`MR. `, `DR.`, `(Ms.) `), returning the name and the title.
pub fn strip_title(name: &str) -> (String, Option<String>) {
    if let Some(inner) = name.strip_prefix('(')
        && let Some((title, rest)) = inner.split_once(')')
        && TITLES.iter().any(|t| t.eq_ignore_ascii_case(title))
        && !rest.trim().is_empty()
    {
        return (rest.trim().to_owned(), Some(title.to_owned()));
    }
    for title in TITLES {
        if let Some(rest) = strip_prefix_lowercase(name, &title.to_lowercase()) {
            let title = &name[..name.len() - rest.len()];
            let rest = rest.trim_start();
            if !rest.is_empty() {
                return (rest.to_owned(), Some(title.to_owned()));
            }
        }
    }
    (name.to_owned(), None)
}

/// A letter outside the Latin script (Chinese, Cyrillic, Khmer...).
pub fn is_non_latin_letter(c: char) -> bool {
    c.is_alphabetic() && !matches!(c as u32, 0..=0x024F | 0x1E00..=0x1EFF | 0x0250..=0x02AF)
}

fn non_latin_alias(name: &str) -> Alias {
    Alias {
        script: Some(script_of(name).unwrap_or("non-Latin").to_owned()),
        ..Alias::new(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        split(text)
            .pieces
            .into_iter()
            .flat_map(|p| match p {
                Piece::Aliases(a) => a.into_iter().map(|a| a.name).collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    #[test]
    fn footnotes_registrations_and_aliases() {
        let t = split(
            "(d/b/a Groupe Systèmes et Solutions D’entreprise, ESS Group, Enterprise Systems and Solutions Group) (Now known as MetaFlow Inc.) (Reg. No. 1859937)*189",
        );
        assert_eq!(t.footnotes, ["189"]);
        assert_eq!(t.rest, "");
        assert!(
            t.pieces
                .contains(&Piece::Registration("Reg. No. 1859937".into()))
        );
        assert_eq!(
            names(
                "(d/b/a Groupe Systèmes et Solutions D’entreprise, ESS Group) (Now known as MetaFlow Inc.)"
            ),
            [
                "Groupe Systèmes et Solutions D’entreprise",
                "ESS Group",
                "MetaFlow Inc."
            ]
        );
        assert_eq!(
            names("f/k/a Henan Xinjinzhu Landscaping Engineering Co., Ltd. *286"),
            ["Henan Xinjinzhu Landscaping Engineering Co., Ltd."]
        );
        assert_eq!(names("*192 (AKA MR. LI YI)"), ["LI YI"]);
        assert_eq!(
            names(", also MR. LUIS SÁNCHEZ SANTUR *258"),
            ["LUIS SÁNCHEZ SANTUR"]
        );
        assert_eq!(
            names("(新疆交通建设集团股份有限公司, 新疆交建)*647"),
            ["新疆交通建设集团股份有限公司", "新疆交建"]
        );
        assert_eq!(
            names(
                "(Also Doing Business Under Laxmi Narayan Construction or Laxminarayan Construction) *187"
            ),
            ["Laxmi Narayan Construction", "Laxminarayan Construction"]
        );
        assert_eq!(split("* 43 and 45").footnotes, ["43", "45"]);
        assert_eq!(split("*219,  *328").footnotes, ["219", "328"]);
        assert_eq!(split("*87   as a successor").rest, "as a successor");
        assert_eq!(
            names("(AKA LONESTAR SUPPLIES AND LOGISTICS (PVT) LTD)"),
            ["LONESTAR SUPPLIES AND LOGISTICS (PVT) LTD"]
        );
        assert_eq!(
            names("(f.k.a [Shaanxi Neoplan Trading Co., Ltd.])"),
            ["Shaanxi Neoplan Trading Co., Ltd."]
        );
        assert_eq!(
            names("AKA (Ms.) Ir. Norma Kumalawati"),
            ["Ir. Norma Kumalawati"]
        );
        assert_eq!(
            names(
                "(formerly known as CompuAids (doing business as (dba) Groupe Systèmes also dba ESS Group, also dba Enterprise Systems and Solutions) (Reg. No. 1859937) *189"
            ),
            [
                "CompuAids",
                "Groupe Systèmes",
                "ESS Group",
                "Enterprise Systems and Solutions"
            ]
        );
    }

    #[test]
    fn names_keep_ordinary_parentheses_and_lose_titles() {
        let t = split("MULTISTAR HOLDINGS LIMITED (FORMERLY MULTI-CON SYSTEMS PTE LTD.)");
        assert_eq!(t.rest, "MULTISTAR HOLDINGS LIMITED");
        assert_eq!(
            split("SHARDA IMPEX (U.K.) LTD.").rest,
            "SHARDA IMPEX (U.K.) LTD."
        );
        assert_eq!(
            split("XINJIANG JIAOTONG LOGISTICS CO., LTD. (ALSO KNOWN AS XCCG LOGISTICS CO., LTD.")
                .rest,
            "XINJIANG JIAOTONG LOGISTICS CO., LTD."
        );
        assert_eq!(strip_title("DR.HANS PETER SCHÖNE").0, "HANS PETER SCHÖNE");
        assert_eq!(
            strip_title("MR. IYKE AMBROSE"),
            ("IYKE AMBROSE".into(), Some("MR.".into()))
        );
        assert_eq!(strip_title("MD. HARUN UR RASHID").0, "MD. HARUN UR RASHID");
    }
}
