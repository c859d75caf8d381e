//! Fuzzing without nightly: a small mutation fuzzer over every parser, the text decoding, the
//! zip bounds of the spreadsheets, the date parser, the name normaliser and the fetch
//! configuration, on the stable toolchain. The decoding target also checks that text
//! accepted as UTF-8 is never changed; the decoding and zip targets run from fixed seeds in
//! every `cargo test` as well.
//!
//! Each target starts from seeds in the official formats (the hand-made fixtures) and applies
//! random mutations: byte flips, deletions, duplications, splices, long digit runs and
//! characters whose case forms change byte length. Any panic fails the test, printing the
//! target and the input, and saves the input under `target/fuzz-crashes/` to be kept as a
//! regression test. Found so far (each now a regression test): an out-of-range date part
//! (`model::entity`), the Kelvin sign in a World Bank name (`sources::world_bank`), `retries`
//! of 56 and more (`fetch::backoff`).
//!
//! `cargo test --test lists fuzz::` runs a few hundred inputs per target; `FUZZ_SECS=N` runs each
//! target for N seconds instead (`.ci/fuzz` does so in CI); `FUZZ_SEED` repeats a run.
#![allow(clippy::unwrap_used)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sanctions_model::{DateSpec, ListCode};
use sanctions_sources::{self as sources, Input};

/// xorshift64*: reproducible from a seed, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Characters that break code assuming a character keeps its byte length through case
/// mapping, computed (not hand-picked): the Kelvin sign, dotted capital I, long s, ...
fn case_changers() -> Vec<char> {
    (0..=0x10FFFFu32)
        .filter_map(char::from_u32)
        .filter(|c| {
            let len = c.len_utf8();
            c.to_lowercase().collect::<String>().len() != len
                || c.to_uppercase().collect::<String>().len() != len
        })
        .collect()
}

/// Non-ASCII characters whose case form is an ASCII letter, by that letter (lowercase): the
/// Kelvin sign for `k`, the long s for `s`, the dotless i for `i`. Swapped in for the letter,
/// they pass a case-insensitive comparison while changing the text's byte length.
fn ascii_lookalikes() -> Vec<(u8, char)> {
    (0x80..=0x10FFFFu32)
        .filter_map(char::from_u32)
        .filter_map(|c| {
            let folded: String = c.to_lowercase().collect();
            let upper: String = c.to_uppercase().collect();
            [folded, upper]
                .into_iter()
                .find(|f| f.len() == 1 && f.as_bytes()[0].is_ascii_alphabetic())
                .map(|f| (f.as_bytes()[0].to_ascii_lowercase(), c))
        })
        .collect()
}

/// Other interesting text: separators, marks, quotes, zero-width and bidi characters.
const SPECIALS: &[&str] = &[
    "\u{FEFF}",
    "\u{200B}",
    "\u{0301}",
    "\u{202E}",
    "\u{00A0}",
    "'",
    "\"",
    "(",
    ")",
    "/",
    ",",
    ";",
    "-",
    ".",
    ":",
    "<",
    ">",
    "&",
    "&amp;",
    "\r\n",
    "\n",
    "\t",
    "\0",
    "\u{1A}",
    "*",
    "[",
    "]",
    "a.k.a. ",
    "also known as ",
    "f.k.a. ",
    " or ",
    "DOB ",
    "Mr. ",
    "Ltd",
    "ООО ",
];

struct Mutator {
    rng: Rng,
    chars: Vec<char>,
    lookalikes: Vec<(u8, char)>,
}

impl Mutator {
    fn mutate(&mut self, input: &mut Vec<u8>, seeds: &[Vec<u8>]) {
        for _ in 0..=self.rng.below(4) {
            self.one(input, seeds);
        }
        input.truncate(1 << 20);
    }

    fn one(&mut self, input: &mut Vec<u8>, seeds: &[Vec<u8>]) {
        let len = input.len();
        let at = self.rng.below(len + 1);
        match self.rng.below(10) {
            0 if len > 0 => {
                let i = self.rng.below(len);
                input[i] ^= 1 << self.rng.below(8);
            }
            1 if len > 0 => {
                let end = (at + 1 + self.rng.below(64)).min(len);
                input.drain(at.min(end)..end);
            }
            2 if len > 0 => {
                let start = self.rng.below(len);
                let end = (start + 1 + self.rng.below(256)).min(len);
                let copy = input[start..end].to_vec();
                input.splice(at..at, copy);
            }
            3 => {
                let c = self.chars[self.rng.below(self.chars.len())];
                input.splice(at..at, c.to_string().into_bytes());
            }
            4 => {
                let s = SPECIALS[self.rng.below(SPECIALS.len())];
                input.splice(at..at, s.bytes());
            }
            5 => {
                // A digit run made very long: out-of-range numbers.
                let run = "9".repeat(1 + self.rng.below(30));
                match input[at.min(len)..].iter().position(u8::is_ascii_digit) {
                    Some(p) => {
                        let i = at + p;
                        input.splice(i..i + 1, run.into_bytes());
                    }
                    None => {
                        input.splice(at..at, run.into_bytes());
                    }
                }
            }
            6 => input.truncate(at),
            8 => {
                // An ASCII letter swapped for a lookalike of another byte length.
                let letters: Vec<usize> = (0..len)
                    .filter(|&i| {
                        let b = input[i].to_ascii_lowercase();
                        self.lookalikes.iter().any(|(l, _)| *l == b)
                    })
                    .collect();
                if !letters.is_empty() {
                    let i = letters[self.rng.below(letters.len())];
                    let b = input[i].to_ascii_lowercase();
                    let options: Vec<char> = self
                        .lookalikes
                        .iter()
                        .filter(|(l, _)| *l == b)
                        .map(|(_, c)| *c)
                        .collect();
                    let c = options[self.rng.below(options.len())];
                    input.splice(i..i + 1, c.to_string().into_bytes());
                }
            }
            7 if !seeds.is_empty() => {
                let other = &seeds[self.rng.below(seeds.len())];
                let start = self.rng.below(other.len());
                let end = (start + 1 + self.rng.below(512)).min(other.len());
                input.splice(at..at, other[start..end].iter().copied());
            }
            _ => {
                let b = b" AZaz09-/.,'\"()<>"[self.rng.below(17)];
                input.insert(at, b);
            }
        }
    }
}

/// World Bank names written with each kind of alias marker the real file uses.
const WORLD_BANK_MARKERS: &str = r#"{"response":{"ZPROCSUPP":[
{"SUPP_ID":1,"SUPP_NAME":"ACME LTD (aka ACME TRADING)","SUPP_TYPE_CODE":"F","ADD_SUPP_INFO":"(fka ACME OLD; a.k.a. ACME GROUP) (f.k.a ACME 2) *12","DEBAR_FROM_DATE":"2020-01-01","DEBAR_TO_DATE":"2030-01-01"},
{"SUPP_ID":2,"SUPP_NAME":"MRS. JANE DOE (also known as JANE ROE)","SUPP_TYPE_CODE":"I","ADD_SUPP_INFO":"(formerly known as J. DOE) (f/k/a JD) (n/k/a JANE SMITH)","DEBAR_TO_DATE":"2999-12-31"}
]}}"#;

type Run = Box<dyn Fn(&[u8])>;

struct Target {
    name: &'static str,
    seeds: Vec<Vec<u8>>,
    run: Run,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every file of the fixture folders `dirs` (under tests/fixtures/<list>/).
fn seeds_from(list: &str, dirs: &[&str]) -> Vec<Vec<u8>> {
    dirs.iter()
        .flat_map(|d| {
            std::fs::read_dir(fixtures().join(list).join(d))
                .into_iter()
                .flatten()
        })
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect()
}

fn text_seeds(items: &[&str]) -> Vec<Vec<u8>> {
    items.iter().map(|s| s.as_bytes().to_vec()).collect()
}

/// A target feeding one file of a list through `parse_input`.
fn input_target(
    name: &'static str,
    file: &'static str,
    seeds: Vec<Vec<u8>>,
    parse: fn(&Input) -> Result<sources::ParsedList, sources::SourceError>,
) -> Target {
    Target {
        name,
        seeds,
        run: Box::new(move |bytes| {
            let _ = parse(&Input::from_bytes(file, bytes.to_vec()));
        }),
    }
}

/// OFAC's four files: the mutated bytes as `file`, the others from the good fixture.
fn ofac_target(name: &'static str, file: &'static str) -> Target {
    let good = fixtures().join("ofac_sdn/good");
    let seeds = vec![std::fs::read(good.join(file)).unwrap()];
    let dir = tempfile::tempdir().unwrap();
    for other in ["sdn.csv", "add.csv", "alt.csv", "sdn_comments.csv"] {
        std::fs::copy(good.join(other), dir.path().join(other)).unwrap();
    }
    Target {
        name,
        seeds,
        run: Box::new(move |bytes| {
            std::fs::write(dir.path().join(file), bytes).unwrap();
            let _ = sources::parse_dir(ListCode::OfacSdn, dir.path());
        }),
    }
}

/// Seeds of the decoding target: each declaration and detection path of
/// `sources::decoding` (UTF-8 declared and detected, a BOM, UTF-16, a Latin-1 declaration, a
/// legacy single-byte file, JSON).
fn decoding_seeds() -> Vec<Vec<u8>> {
    let mut seeds = text_seeds(&[
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><A><N>أسامة بن لادن</N></A>",
        "<a>Путин</a>",
        "{\"SUPP_NAME\": \"Müller\"}",
        "1,\"Jos\u{e9}\",-0- \r\n",
    ]);
    seeds.push(b"\xEF\xBB\xBF<a>Jos\xC3\xA9</a>".to_vec());
    seeds.push(b"\xFF\xFE<\x00a\x00>\x00\x14\x04".to_vec());
    seeds.push(b"\xFE\xFF\x00<\x00a\x00>".to_vec());
    seeds.push(b"<?xml version='1.0' encoding='ISO-8859-1'?><a>Jos\xE9</a>".to_vec());
    seeds.push(b"1,\"M\xDCLLER\",-0- \r\n\x1A".to_vec());
    seeds
}

/// Decoding never changes text silently: whatever it accepts as UTF-8 is the bytes
/// themselves (less a BOM and the DOS end-of-file byte).
fn decode_checked(bytes: &[u8]) {
    let Ok(decoded) = sources::decoding::decode("fuzz", bytes) else {
        return;
    };
    if decoded.encoding == "UTF-8" {
        let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let body = body.strip_suffix(&[0x1A]).unwrap_or(body);
        assert_eq!(decoded.text.as_bytes(), body, "UTF-8 text changed");
    }
}

/// Seeds of the archive target: the xlsx fixtures and a small zip bomb.
fn archive_seeds() -> Vec<Vec<u8>> {
    use std::io::Write;
    let mut bomb = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    bomb.start_file("xl/sharedStrings.xml", options).unwrap();
    bomb.write_all(&vec![b' '; 2 << 20]).unwrap();
    let bomb = bomb.finish().unwrap().into_inner();
    [
        seeds_from("au_dfat", &["good", "broken_truncated"]),
        vec![bomb],
    ]
    .concat()
}

/// The decoding and archive targets, also run with fixed seeds by
/// `decoding_and_archives_never_panic_on_fixed_seeds`.
fn damage_targets() -> Vec<Target> {
    vec![
        Target {
            name: "decoding",
            seeds: decoding_seeds(),
            run: Box::new(decode_checked),
        },
        Target {
            name: "zip_bounds",
            seeds: archive_seeds(),
            run: Box::new(|b| {
                let limits = sources::archive::XLSX_LIMITS;
                if sources::archive::check_zip("fuzz.xlsx", b, &limits).is_ok() {
                    let _ =
                        sources::au_dfat::parse_input(&Input::from_bytes("fuzz.xlsx", b.to_vec()));
                }
            }),
        },
    ]
}

fn targets() -> Vec<Target> {
    let mut all = base_targets();
    all.extend(damage_targets());
    all
}

fn base_targets() -> Vec<Target> {
    vec![
        Target {
            name: "date",
            seeds: text_seeds(&[
                "2020-01-01",
                "07/10/1952",
                "00/00/1960",
                "07 Oct 1952",
                "Oct 1952",
                "circa 1958",
                "1958 to 1960",
                "1958-1960",
            ]),
            run: Box::new(|b| {
                let _ = DateSpec::parse_loose(&String::from_utf8_lossy(b));
            }),
        },
        Target {
            name: "normalize",
            seeds: text_seeds(&[
                "PUTIN, Vladimir Vladimirovich",
                "Limited Liability Company \"Sibur\"",
                "Абу Бакр аль-Багдади",
                "金正恩",
                "Dr. Abdel Aziz bin Ali AL-QAIDA S.A. de C.V.",
            ]),
            run: Box::new(|b| {
                let text = String::from_utf8_lossy(b);
                let _ = sanctions_engine::normalize::tokens(&text, true);
                let _ = sanctions_engine::normalize::tokens(&text, false);
            }),
        },
        Target {
            name: "fetch_config",
            seeds: text_seeds(&["[fetch]\ntimeout_secs = 5\nretries = 2\nmax_bytes = 1000\n"]),
            run: Box::new(|b| {
                if let Ok(config) =
                    sanctions_service::config::Config::parse(&String::from_utf8_lossy(b))
                {
                    for attempt in 1..=config.fetch.retries.min(10_000) {
                        let _ = sanctions_service::fetch::backoff(attempt);
                    }
                }
            }),
        },
        ofac_target("ofac_sdn.csv", "sdn.csv"),
        ofac_target("ofac_alt.csv", "alt.csv"),
        ofac_target("ofac_add.csv", "add.csv"),
        input_target(
            "eu",
            "list.xml",
            seeds_from("eu", &["good", "broken_truncated"]),
            sources::eu::parse_input,
        ),
        input_target(
            "un",
            "consolidated.xml",
            seeds_from("un", &["good", "broken_truncated"]),
            sources::un::parse_input,
        ),
        input_target(
            "ca_sema",
            "sema-lmes.xml",
            seeds_from("ca_sema", &["good"]),
            sources::ca_sema::parse_input,
        ),
        input_target(
            "uk_fcdo_xml",
            "UK-Sanctions-List.xml",
            seeds_from("uk_hmt", &["fcdo_xml"]),
            sources::uk::parse_input,
        ),
        input_target(
            "uk_csv",
            "UK-Sanctions-List.csv",
            seeds_from("uk_hmt", &["fcdo", "conlist_csv", "fcdo_summary"]),
            sources::uk::parse_input,
        ),
        input_target(
            "uk_xlsx",
            "ConList.xlsx",
            seeds_from("au_dfat", &["good"]),
            sources::uk::parse_input,
        ),
        input_target(
            "au_dfat",
            "regulation8_consolidated.xlsx",
            seeds_from("au_dfat", &["good"]),
            sources::au_dfat::parse_input,
        ),
        input_target(
            "world_bank",
            "SANCTIONED_FIRM.json",
            [
                seeds_from("world_bank", &["good"]),
                text_seeds(&[WORLD_BANK_MARKERS]),
            ]
            .concat(),
            sources::world_bank::parse_input,
        ),
    ]
}

/// Runs `target` until `budget` passes or `max_runs` inputs were tried; returns the number of
/// inputs, or the crashing input with its panic message.
fn fuzz(
    target: &Target,
    mutator: &mut Mutator,
    budget: Duration,
    max_runs: u64,
) -> Result<u64, (Vec<u8>, String)> {
    let started = Instant::now();
    let mut runs = 0u64;
    let try_one = |input: &[u8]| {
        catch_unwind(AssertUnwindSafe(|| (target.run)(input))).map_err(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            (input.to_vec(), message)
        })
    };
    for seed in &target.seeds {
        try_one(seed)?;
    }
    while started.elapsed() < budget && runs < max_runs {
        let mut input = target.seeds[mutator.rng.below(target.seeds.len())].clone();
        mutator.mutate(&mut input, &target.seeds);
        try_one(&input)?;
        runs += 1;
    }
    Ok(runs)
}

/// Runs `targets` from a fixed seed each (reproducible in every run, unlike the main test's
/// clock seed) and fails on the first panic.
fn run_fixed(targets: Vec<Target>, seeds: &[u64], runs: u64) {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut crashes = Vec::new();
    for target in &targets {
        for &seed in seeds {
            let mut mutator = Mutator {
                rng: Rng(seed | 1),
                chars: case_changers(),
                lookalikes: ascii_lookalikes(),
            };
            if let Err((input, message)) = fuzz(target, &mut mutator, Duration::from_secs(60), runs)
            {
                crashes.push(format!(
                    "{} seed {seed}: panicked ({message}) on {:?}",
                    target.name,
                    String::from_utf8_lossy(&input[..input.len().min(500)])
                ));
            }
        }
    }
    std::panic::set_hook(hook);
    assert!(crashes.is_empty(), "{}", crashes.join("\n"));
}

#[test]
fn decoding_and_archives_never_panic_on_fixed_seeds() {
    run_fixed(damage_targets(), &[1, 22, 2026], 200);
}

#[test]
fn no_input_reaches_a_panic() {
    let secs: Option<f64> = std::env::var("FUZZ_SECS").ok().and_then(|s| s.parse().ok());
    let (budget, max_runs) = match secs {
        Some(secs) => (Duration::from_secs_f64(secs), u64::MAX),
        None => (Duration::from_secs(2), 300),
    };
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
        | 1;
    let only = std::env::var("FUZZ_TARGET").ok();
    let mut mutator = Mutator {
        rng: Rng(seed),
        chars: case_changers(),
        lookalikes: ascii_lookalikes(),
    };
    // A panic is expected while fuzzing: keep the default hook from printing each one.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut crashes = Vec::new();
    for target in targets() {
        if only.as_deref().is_some_and(|o| o != target.name) {
            continue;
        }
        match fuzz(&target, &mut mutator, budget, max_runs) {
            Ok(runs) => println!("fuzz {:<14} {runs} inputs, no panic", target.name),
            Err((input, message)) => {
                let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-crashes");
                let _ = std::fs::create_dir_all(&dir);
                let file = dir.join(format!("{}-{seed}.bin", target.name));
                let _ = std::fs::write(&file, &input);
                crashes.push(format!(
                    "{}: panicked ({message}) on {:?}, saved as {}",
                    target.name,
                    String::from_utf8_lossy(&input[..input.len().min(2_000)]),
                    file.display()
                ));
            }
        }
    }
    std::panic::set_hook(hook);
    assert!(
        crashes.is_empty(),
        "seed {seed} (FUZZ_SEED={seed} repeats it):\n{}",
        crashes.join("\n")
    );
}
