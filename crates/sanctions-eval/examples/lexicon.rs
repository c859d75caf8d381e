//! Writes the engine's cross-script lexicon (`crates/sanctions-engine/src/lexicon.txt`) from the lists: the
//! words of the bilingual entries of the cross-script split's tune half, aligned
//! (`quality::lexicon`). `cargo run --release --example lexicon [-- LISTS_DIR]`.

use std::path::PathBuf;

fn main() -> color_eyre::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let lists = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../../../shared/data/lists"));
    let (entries, problems) = sanctions_eval::names_from_dir(&lists);
    if !problems.is_empty() {
        color_eyre::eyre::bail!("lists not read whole, the lexicon would differ: {problems:?}");
    }
    let text = sanctions_eval::lexicon::learn(&entries);
    let path = root.join("../sanctions-engine/src/lexicon.txt");
    std::fs::write(&path, &text)?;
    eprintln!("wrote {} ({} lines)", path.display(), text.lines().count());
    Ok(())
}
