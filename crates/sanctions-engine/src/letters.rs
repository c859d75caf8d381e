//! Cheap lower bounds on the edits between two ASCII words, from their letters and their
//! pairs of adjacent letters as bits of a `u64`: a word more edits from another by these than
//! a comparison allows need not be compared (the join targets of the incremental
//! re-screen's bound, the long listed words it reads, the legal forms' typos).

/// The letters of an ASCII string as bits (`byte % 64`; two bytes that share a bit only
/// make [`apart`]'s count of differing letters smaller, never larger).
pub(crate) fn letters(text: &str) -> u64 {
    text.bytes().fold(0, |bits, b| bits | 1 << (b & 63))
}

/// Whether strings of [`letters`] and [`bigrams`] `own` and `theirs` can be `allowed` edits
/// apart ([`apart`], [`bigrams_apart`]).
#[inline]
pub(crate) fn within(own: (u64, u64), theirs: (u64, u64), allowed: u32) -> bool {
    apart(own.0, theirs.0) <= allowed && bigrams_apart(own.1, theirs.1) <= allowed
}

/// The fewest edits between strings of letters `a` and `b` ([`letters`]): each edit brings
/// in or takes out at most one distinct letter, so they are at least as many edits apart as
/// either has letters the other lacks.
#[inline]
pub(crate) fn apart(a: u64, b: u64) -> u32 {
    (a & !b).count_ones().max((b & !a).count_ones())
}

/// The fewest edits between strings of adjacent-letter pairs `a` and `b` ([`bigrams`]): an
/// edit (a transposition included) breaks at most three pairs of either string, so they are
/// at least a third as many edits apart as either has pairs the other lacks.
#[inline]
pub(crate) fn bigrams_apart(a: u64, b: u64) -> u32 {
    apart(a, b).div_ceil(3)
}

/// The pairs of adjacent bytes of an ASCII string, each as one of 64 bits (a hash: two pairs
/// that share a bit only make [`bigrams_apart`] smaller, never larger).
pub(crate) fn bigrams(text: &str) -> u64 {
    text.as_bytes().windows(2).fold(0, |bits, w| {
        let pair = u32::from(w[0]) << 8 | u32::from(w[1]);
        bits | 1 << (pair.wrapping_mul(0x9E37_79B1) >> 26)
    })
}

/// Whether ASCII words `a` and `b` can be `allowed` edits apart by their letters ([`apart`]);
/// words not both in ASCII always can (their distance counts characters, not bytes).
#[inline]
pub(crate) fn words_within(a: &str, b: &str, allowed: u32) -> bool {
    !(a.is_ascii() && b.is_ascii()) || apart(letters(a), letters(b)) <= allowed
}

/// The most edits `share` of `longest` bytes allows (with room for float rounding: a
/// similarity of `1 - edits / longest` at least `1 - share` holds no more).
pub(crate) fn edits_allowed(longest: usize, share: f32) -> u32 {
    (share * longest as f32 + 0.002) as u32
}

/// `word` with one edit at `at` (a letter added, dropped, changed or swapped with the next):
/// the typos the tests of the letters' filters compare with the distances.
#[cfg(test)]
pub(crate) fn edited(word: &str, at: usize, kind: u8, letter: u8) -> String {
    let mut bytes = word.as_bytes().to_vec();
    let at = at % (bytes.len() + 1);
    match kind {
        0 => bytes.insert(at, letter),
        1 if at < bytes.len() => drop(bytes.remove(at)),
        2 if at < bytes.len() => bytes[at] = letter,
        _ if at + 1 < bytes.len() => bytes.swap(at, at + 1),
        _ => {}
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// `word` with `edits` (place, kind, letter) applied in turn ([`edited`]).
#[cfg(test)]
pub(crate) fn with_edits(word: &str, edits: &[(usize, u8, u8)]) -> String {
    edits
        .iter()
        .fold(word.to_owned(), |w, &(at, kind, letter)| {
            edited(&w, at, kind, letter)
        })
}
