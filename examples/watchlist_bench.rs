//! The watchlist benchmark of the README: a large synthetic watchlist (default 1,000,000
//! names) imported over the real lists with the older OFAC SDN edition, then the real OFAC
//! update (2023-12-28 -> 2024-05-03) imported and the watchlist monitored.
//!
//! `cargo run --release --example watchlist_bench [-- N]`

use std::path::{Path, PathBuf};
use std::time::Instant;

use sanctions_api::favorites::{FavoriteImport, FavoriteRequest};
use sanctions_model::ListCode;
use sanctions_service::ingest::{ImportOptions, Outcome};
use sanctions_service::{LocalService, Service};

const FIRST: &[&str] = &[
    "James",
    "Mary",
    "John",
    "Patricia",
    "Robert",
    "Jennifer",
    "Michael",
    "Linda",
    "William",
    "Elizabeth",
    "David",
    "Barbara",
    "Richard",
    "Susan",
    "Joseph",
    "Jessica",
    "Thomas",
    "Sarah",
    "Charles",
    "Karen",
    "Mohammed",
    "Fatima",
    "Ahmed",
    "Aisha",
    "Ali",
    "Omar",
    "Hassan",
    "Layla",
    "Ivan",
    "Olga",
    "Sergei",
    "Natalia",
    "Dmitri",
    "Elena",
    "Wei",
    "Li",
    "Jun",
    "Mei",
    "Hiroshi",
    "Yuki",
    "Carlos",
    "Maria",
    "Jose",
    "Ana",
    "Luis",
    "Carmen",
    "Pedro",
    "Lucia",
    "Giovanni",
    "Giulia",
    "Pierre",
    "Claire",
    "Hans",
    "Anna",
    "Lars",
    "Ingrid",
    "Raj",
    "Priya",
    "Amit",
    "Sunita",
    "Kwame",
    "Amara",
    "Chinedu",
    "Ngozi",
    "Tariq",
    "Yasmin",
    "Mehmet",
    "Ayse",
    "Jan",
    "Eva",
    "Piotr",
    "Katarzyna",
    "Andrei",
    "Ioana",
    "Nikos",
    "Eleni",
    "Sven",
    "Astrid",
    "Paulo",
    "Beatriz",
];
const LAST: &[&str] = &[
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Garcia",
    "Miller",
    "Davis",
    "Rodriguez",
    "Martinez",
    "Hernandez",
    "Lopez",
    "Gonzalez",
    "Wilson",
    "Anderson",
    "Taylor",
    "Moore",
    "Jackson",
    "Martin",
    "Lee",
    "Thompson",
    "White",
    "Harris",
    "Clark",
    "Lewis",
    "Robinson",
    "Walker",
    "Young",
    "Allen",
    "King",
    "Wright",
    "Scott",
    "Green",
    "Baker",
    "Adams",
    "Nelson",
    "Khan",
    "Hussein",
    "Rahman",
    "Haddad",
    "Nasser",
    "Saleh",
    "Mansour",
    "Aziz",
    "Ivanov",
    "Petrov",
    "Smirnov",
    "Popov",
    "Kuznetsov",
    "Sokolov",
    "Wang",
    "Zhang",
    "Liu",
    "Chen",
    "Yang",
    "Huang",
    "Tanaka",
    "Suzuki",
    "Sato",
    "Kim",
    "Park",
    "Nguyen",
    "Tran",
    "Silva",
    "Santos",
    "Oliveira",
    "Pereira",
    "Costa",
    "Rossi",
    "Russo",
    "Ferrari",
    "Esposito",
    "Bianchi",
    "Dubois",
    "Moreau",
    "Laurent",
    "Muller",
    "Schmidt",
    "Schneider",
    "Fischer",
    "Weber",
    "Meyer",
    "Wagner",
    "Becker",
    "Hansen",
    "Johansson",
    "Nielsen",
    "Kowalski",
    "Nowak",
    "Wisniewski",
    "Popescu",
    "Papadopoulos",
    "Yilmaz",
    "Kaya",
    "Demir",
    "Sharma",
    "Patel",
    "Singh",
    "Kumar",
    "Gupta",
    "Okafor",
    "Mensah",
    "Diallo",
    "Traore",
    "Mwangi",
    "Otieno",
    "Novak",
    "Horvat",
    "Kovac",
];

const TRADE: &[&str] = &[
    "Trading",
    "Logistics",
    "Textiles",
    "Foods",
    "Motors",
    "Software",
    "Shipping",
    "Metals",
    "Pharma",
    "Energy",
    "Farms",
    "Holdings",
    "Construction",
    "Media",
    "Chemicals",
    "Imports",
    "Exports",
    "Marine",
    "Fashion",
    "Electronics",
];

/// A deterministic stream of names: two given names and two surnames, one in ten a company.
fn names(n: usize) -> Vec<String> {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |m: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % m as u64) as usize
    };
    (0..n)
        .map(|i| {
            if i % 10 == 0 {
                format!(
                    "{} {} {} {}",
                    LAST[next(LAST.len())],
                    LAST[next(LAST.len())],
                    TRADE[next(TRADE.len())],
                    ["Ltd", "LLC", "GmbH", "SA", "Co"][next(5)]
                )
            } else {
                format!(
                    "{} {} {} {}",
                    FIRST[next(FIRST.len())],
                    FIRST[next(FIRST.len())],
                    LAST[next(LAST.len())],
                    LAST[next(LAST.len())]
                )
            }
        })
        .collect()
}

fn db_bytes(dir: &Path) -> u64 {
    ["sanctions.db", "sanctions.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

fn layout(shared: &Path, ofac: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for list in ListCode::ALL {
        let target = if list == ListCode::OfacSdn {
            ofac.to_path_buf()
        } else {
            shared.join("lists").join(list.code())
        };
        std::os::unix::fs::symlink(target, dir.path().join(list.code())).expect("symlink");
    }
    dir
}

fn main() -> color_eyre::Result<()> {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    let work = tempfile::tempdir()?;
    let db = work.path().join("sanctions.db");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let svc = LocalService::open(&db, "bench")?;
    let options = ImportOptions {
        allow_shrink: true,
        ..ImportOptions::default()
    };

    let older = layout(
        &shared,
        &shared.join("editions/ofac_sdn/consistent_2023-12-28"),
    );
    rt.block_on(svc.import_lists(older.path().to_path_buf(), vec![], options.clone()))?;
    let before = db_bytes(work.path());

    let mut list = names(n);
    // A few real names among them, so that the watchlist matches something.
    list.extend(["Vladimir Putin", "Banco Nacional de Cuba", "Kim Jong Un"].map(str::to_owned));
    let started = Instant::now();
    let summary = rt.block_on(
        svc.import_favorites(FavoriteImport {
            names: list
                .into_iter()
                .map(|name| FavoriteRequest {
                    name,
                    kind: None,
                    note: None,
                    date_of_birth: None,
                    country: None,
                })
                .collect(),
        }),
    )?;
    let import_secs = started.elapsed().as_secs_f64();
    let after = db_bytes(work.path());
    println!(
        "watchlist import: {} names read, {} added, {} duplicates, {} matching, in {:.1} s; database {:.0} MB -> {:.0} MB (+{:.0} bytes per favorite)",
        summary.total,
        summary.added,
        summary.duplicates,
        summary.matched,
        import_secs,
        before as f64 / 1e6,
        after as f64 / 1e6,
        (after - before) as f64 / summary.added.max(1) as f64
    );

    let current = layout(&shared, &shared.join("lists/ofac_sdn"));
    let started = Instant::now();
    let (outcomes, monitored) = rt.block_on(svc.import_lists(
        current.path().to_path_buf(),
        vec![ListCode::OfacSdn],
        options,
    ))?;
    let total_secs = started.elapsed().as_secs_f64();
    for o in &outcomes {
        if let Outcome::Imported(r) = &o.outcome {
            println!(
                "update: {} +{} -{} ~{} ({} entries changed)",
                r.list,
                r.added,
                r.removed,
                r.changed,
                r.added + r.removed + r.changed
            );
        }
    }
    println!(
        "re-screen after the update: mode {}, {} favorites, {} screened again, {} changed, {} alerts, {} ms (import + re-screen {:.1} s)",
        monitored.mode,
        monitored.favorites,
        monitored.screened,
        monitored.changed,
        monitored.alert_ids.len(),
        monitored.millis,
        total_secs
    );
    Ok(())
}
