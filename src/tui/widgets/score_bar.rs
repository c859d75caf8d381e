//! A score (0-100) as a bar of eighth blocks followed by its number, so that meaning never
//! rests on colour alone.

const EIGHTHS: [char; 8] = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];

/// `score` as a `width`-column bar plus the number, e.g. `█████▌ 93`.
pub fn score_bar(score: u8, width: usize) -> String {
    let score = score.min(100) as usize;
    let eighths = score * width * 8 / 100;
    let mut out: String = std::iter::repeat_n('█', eighths / 8).collect();
    if !eighths.is_multiple_of(8) {
        out.push(EIGHTHS[eighths % 8 - 1]);
    }
    while out.chars().count() < width {
        out.push(' ');
    }
    format!("{out} {score:>3}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn bars_scale_with_the_score() {
        assert_eq!(super::score_bar(100, 4), "████ 100");
        assert_eq!(super::score_bar(50, 4), "██    50");
        assert_eq!(super::score_bar(0, 2), "     0");
    }
}
