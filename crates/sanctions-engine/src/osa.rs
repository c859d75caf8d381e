//! The optimal-string-alignment edit distance of two words (insertions, deletions,
//! substitutions and transpositions of adjacent letters), the measure under every typo
//! comparison of [`super::similarity`]: bit-parallel for words of up to 64 letters, by rows
//! of cells otherwise, the same distance either way (tested against each other and against
//! `strsim`).

/// The optimal-string-alignment distance (`strsim::osa_distance`: insertions, deletions,
/// substitutions and transpositions of adjacent letters), on bytes for ASCII words, the
/// normalised tokens, bit-parallel when either is at most 64 letters
/// ([`osa_bit_parallel`]): the same result without allocation and in a fraction of the
/// work, on the hot path of every query.
pub fn osa_distance(a: &str, b: &str) -> usize {
    osa_bounded(a, b, usize::MAX)
}

/// [`osa_distance`], or some number above `bound` once the distance must exceed it (only
/// strings both longer than 64 letters stop early; shorter ones get the distance itself).
pub(crate) fn osa_bounded(a: &str, b: &str, bound: usize) -> usize {
    if !a.is_ascii() || !b.is_ascii() {
        return strsim::osa_distance(a, b);
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // The distance is symmetric: the shorter string is the one held in a machine word.
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() <= u64::BITS as usize {
        return osa_bit_parallel(short, long);
    }
    let row = || vec![0usize; b.len() + 1];
    osa_rows(a, b, &mut row(), &mut row(), &mut row(), bound)
}

/// The optimal-string-alignment distance of ASCII `short` (at most 64 bytes) and `long`,
/// computed a column at a time with the column's cells as bits of two words (Hyyrö's
/// bit-parallel edit distance extended with adjacent transpositions, 2003, as
/// `rapidfuzz` computes OSA): the same distance as [`osa_rows`], in a few word operations
/// per letter of `long` instead of a row of cells.
fn osa_bit_parallel(short: &[u8], long: &[u8]) -> usize {
    let Some(last) = short.len().checked_sub(1) else {
        return long.len();
    };
    POSITIONS.with(|positions| {
        let mut positions = positions.borrow_mut();
        // For each ASCII byte, the positions of `short` that hold it.
        for (i, &c) in short.iter().enumerate() {
            positions[usize::from(c & 0x7f)] |= 1 << i;
        }
        let distance = osa_columns(&positions, last, short.len(), long);
        // All zero again for the next call: cheaper than clearing the whole table.
        for &c in short {
            positions[usize::from(c & 0x7f)] = 0;
        }
        distance
    })
}

thread_local! {
    /// [`osa_bit_parallel`]'s table of positions per byte, all zero between calls (a fresh
    /// table on the stack cost a kilobyte cleared per call, a tenth of the distance's work).
    static POSITIONS: std::cell::RefCell<[u64; 128]> = const {
        std::cell::RefCell::new([0; 128])
    };
}

/// The columns of [`osa_bit_parallel`]: `positions` of the short string's bytes, `last` its
/// last position, `distance` its length (the distance to an empty string).
fn osa_columns(positions: &[u64; 128], last: usize, mut distance: usize, long: &[u8]) -> usize {
    let mask = 1u64 << last;
    let (mut vp, mut vn, mut d0, mut pm_old) = (!0u64, 0u64, 0u64, 0u64);
    for &c in long {
        let pm = positions[usize::from(c & 0x7f)];
        let transposed = ((!d0 & pm) << 1) & pm_old;
        d0 = ((((pm & vp).wrapping_add(vp)) ^ vp) | pm | vn) | transposed;
        let hp = vn | !(d0 | vp);
        let hn = d0 & vp;
        if hp & mask != 0 {
            distance += 1;
        }
        if hn & mask != 0 {
            distance -= 1;
        }
        let hp = (hp << 1) | 1;
        let hn = hn << 1;
        vp = hn | !(d0 | hp);
        vn = hp & d0;
        pm_old = pm;
    }
    distance
}

/// The distance of `a` and `b` over three rows of at least `b.len() + 1` cells of a type
/// that holds `a.len() + b.len()`; once two consecutive rows hold nothing within `bound`, no
/// later cell can be (a cell comes from the row above, or two rows above plus one), and
/// some number above `bound` is returned.
fn osa_rows<'a, T>(
    a: &[u8],
    b: &[u8],
    mut two_back: &'a mut [T],
    mut prev: &'a mut [T],
    mut curr: &'a mut [T],
    bound: usize,
) -> usize
where
    T: Copy + Ord + From<u8> + std::ops::Add<Output = T> + Into<usize>,
{
    let one = T::from(1);
    let n = b.len();
    let mut c = T::from(0);
    for j in 0..=n {
        two_back[j] = c;
        prev[j] = c;
        c = c + one;
    }
    let mut prev_min = 0;
    let mut start = T::from(0);
    for (i, &ac) in a.iter().enumerate() {
        start = start + one;
        curr[0] = start;
        let mut row_min = start;
        for (j, &bc) in b.iter().enumerate() {
            let cost = T::from(u8::from(ac != bc));
            let mut d = (curr[j] + one).min(prev[j + 1] + one).min(prev[j] + cost);
            if i > 0 && j > 0 && ac != bc && ac == b[j - 1] && bc == a[i - 1] {
                d = d.min(two_back[j - 1] + one);
            }
            curr[j + 1] = d;
            row_min = row_min.min(d);
        }
        let row_min: usize = row_min.into();
        if row_min > bound && prev_min > bound {
            return bound.saturating_add(1);
        }
        prev_min = row_min;
        std::mem::swap(&mut two_back, &mut prev);
        std::mem::swap(&mut prev, &mut curr);
    }
    prev[n].into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_parallel_osa_is_the_table_one() {
        // Every pair of words of up to five letters over three letters (where swaps,
        // repeats and every kind of edit meet), then pseudo-random words up to 64 letters
        // and beyond against their own mangled copies.
        let mut words: Vec<Vec<u8>> = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..5 {
            last = last
                .iter()
                .flat_map(|w: &Vec<u8>| b"abc".iter().map(move |&c| [w.as_slice(), &[c]].concat()))
                .collect();
            words.extend(last.iter().cloned());
        }
        let table = |a: &[u8], b: &[u8]| {
            let row = || vec![0usize; b.len() + 1];
            osa_rows(a, b, &mut row(), &mut row(), &mut row(), usize::MAX)
        };
        for a in &words {
            for b in &words {
                let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
                assert_eq!(osa_bit_parallel(short, long), table(a, b), "{a:?} / {b:?}");
            }
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as usize
        };
        for _ in 0..2000 {
            let len = 1 + next(70);
            let a: Vec<u8> = (0..len).map(|_| b"abcdxy"[next(6)]).collect();
            let mut b = a.clone();
            for _ in 0..next(6) {
                let i = next(b.len() as u64 + 1);
                match next(4) {
                    0 => b.insert(i, b"abcz"[next(4)]),
                    1 if i < b.len() => drop(b.remove(i)),
                    2 if i + 1 < b.len() => b.swap(i, i + 1),
                    _ if i < b.len() => b[i] = b"abcz"[next(4)],
                    _ => {}
                }
            }
            let (sa, sb) = (String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
            assert_eq!(osa_distance(&sa, &sb), table(&a, &b), "{sa} / {sb}");
        }
    }
}
