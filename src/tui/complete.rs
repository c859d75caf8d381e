//! Path completion in the file prompts (Tab): what the typed text completes to, from the
//! names of its folder. The folder is read by the runner ([`list`]); [`complete`] is pure.

use std::path::{Path, PathBuf};

/// Most names of one folder looked at.
const MAX_NAMES: usize = 10_000;
/// Most candidates named under the prompt.
const SHOWN: usize = 8;

/// A folder's entry: its name and whether it is a folder.
pub type Entry = (String, bool);

/// The folder part (up to and with the last `/`) and the name prefix of `typed`.
pub fn split(typed: &str) -> (&str, &str) {
    match typed.rfind('/') {
        Some(i) => typed.split_at(i + 1),
        None => ("", typed),
    }
}

/// `~` and `~/...` with the home folder; other paths as typed.
pub fn expand(typed: &str) -> PathBuf {
    let home = || directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
    if typed == "~" {
        return home().unwrap_or_else(|| PathBuf::from(typed));
    }
    if let Some(rest) = typed.strip_prefix("~/")
        && let Some(home) = home()
    {
        return home.join(rest);
    }
    PathBuf::from(typed)
}

/// The entries of the folder of `typed` whose names start with its last part (hidden
/// ones only when that part starts with `.`), sorted; or why the folder cannot be read.
pub async fn list(typed: String) -> Result<Vec<Entry>, String> {
    tokio::task::spawn_blocking(move || {
        let (dir, prefix) = split(&typed);
        let folder = if dir.is_empty() {
            PathBuf::from(".")
        } else {
            expand(dir)
        };
        read(&folder, prefix)
    })
    .await
    .map_err(|e| e.to_string())?
}

fn read(folder: &Path, prefix: &str) -> Result<Vec<Entry>, String> {
    let entries =
        std::fs::read_dir(folder).map_err(|e| format!("cannot read {}: {e}", folder.display()))?;
    let mut out: Vec<Entry> = entries
        .take(MAX_NAMES)
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
                return None;
            }
            // Follows symlinks: a link to a folder completes as a folder.
            let dir = e.path().is_dir();
            Some((name, dir))
        })
        .collect();
    out.sort();
    Ok(out)
}

/// What Tab does to `typed` given the matching `entries` of its folder: the new value, and a
/// hint to show under the prompt (the candidates when several remain, or why nothing).
pub fn complete(typed: &str, entries: &[Entry]) -> (String, Option<String>) {
    let (dir, prefix) = split(typed);
    match entries {
        [] => (
            typed.to_owned(),
            Some(format!("no file starts with {typed:?}")),
        ),
        [(name, is_dir)] => {
            let slash = if *is_dir { "/" } else { "" };
            (format!("{dir}{name}{slash}"), None)
        }
        many => {
            let first = &many[0].0;
            let common = many.iter().fold(first.len(), |len, (name, _)| {
                first
                    .char_indices()
                    .zip(name.chars())
                    .take_while(|((_, a), b)| a == b)
                    .last()
                    .map_or(0, |((i, a), _)| i + a.len_utf8())
                    .min(len)
            });
            let stem = &first[..common.max(prefix.len()).min(first.len())];
            let names: Vec<String> = many
                .iter()
                .take(SHOWN)
                .map(|(n, d)| if *d { format!("{n}/") } else { n.clone() })
                .collect();
            let more = if many.len() > SHOWN {
                format!(" … ({} in all)", many.len())
            } else {
                String::new()
            };
            (
                format!("{dir}{stem}"),
                Some(format!("{}{more}", names.join("  "))),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(name: &str, dir: bool) -> Entry {
        (name.to_owned(), dir)
    }

    #[test]
    fn one_candidate_completes_and_a_folder_gets_its_slash() {
        assert_eq!(
            complete("data/na", &[e("names.csv", false)]),
            ("data/names.csv".to_owned(), None)
        );
        assert_eq!(
            complete("li", &[e("lists", true)]),
            ("lists/".to_owned(), None)
        );
    }

    #[test]
    fn several_complete_to_their_common_start_and_are_named() {
        let (value, hint) = complete(
            "/tmp/cu",
            &[
                e("customers-2025.csv", false),
                e("customers-2026.csv", false),
                e("cut", true),
            ],
        );
        assert_eq!(value, "/tmp/cu");
        assert_eq!(
            hint.unwrap(),
            "customers-2025.csv  customers-2026.csv  cut/"
        );
        let (value, _) = complete(
            "c",
            &[
                e("customers-2025.csv", false),
                e("customers-2026.csv", false),
            ],
        );
        assert_eq!(value, "customers-202");
        let (value, hint) = complete("x", &[]);
        assert_eq!(value, "x");
        assert!(hint.unwrap().contains("no file starts with"));
    }

    #[tokio::test]
    async fn a_real_folder_is_listed_without_hidden_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("alpha.csv"), "a").unwrap();
        std::fs::write(dir.path().join(".hidden"), "a").unwrap();
        std::fs::create_dir(dir.path().join("also")).unwrap();
        let base = format!("{}/", dir.path().display());
        let all = list(base.clone()).await.unwrap();
        assert_eq!(all, vec![e("alpha.csv", false), e("also", true)]);
        let typed = format!("{base}alp");
        let found = list(typed.clone()).await.unwrap();
        assert_eq!(complete(&typed, &found).0, format!("{base}alpha.csv"));
        assert_eq!(
            list(format!("{base}.h")).await.unwrap(),
            vec![e(".hidden", false)]
        );
        assert!(
            list(format!("{base}nope/x"))
                .await
                .unwrap_err()
                .contains("cannot read")
        );
    }
}
