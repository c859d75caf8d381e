//! The watchlist monitored across a real list update: the older OFAC SDN edition
//! (2023-12-28), then the current one (2024-05-03).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sanctions_api::alerts::{AlertKind, AlertQuery, AlertStatus, AlertStatusRequest};
use sanctions_api::favorites::{FavoriteImport, FavoriteRequest};
use sanctions_model::{Entity, ListCode};
use sanctions_service::local::RescreenMode;
use sanctions_service::{LocalService, Service};
use sanctions_sources as sources;

use crate::{import_older_ofac, layout, older_ofac_dir, permissive, service, shared};

/// The older OFAC SDN edition's entries, as parsed.
fn older_edition() -> Vec<Entity> {
    sources::parse_dir(ListCode::OfacSdn, &older_ofac_dir())
        .unwrap()
        .entities
}

/// The current OFAC SDN edition's entries, as parsed.
fn current_edition() -> Vec<Entity> {
    sources::parse_dir(ListCode::OfacSdn, &shared().join("lists/ofac_sdn"))
        .unwrap()
        .entities
}

fn by_id(entities: Vec<Entity>) -> HashMap<String, Entity> {
    entities.into_iter().map(|e| (e.entity_id(), e)).collect()
}

/// Watchlist names from the two editions: entries added, removed and changed between them,
/// unchanged ones, and names on no list.
fn watchlist_names() -> Vec<String> {
    let old = by_id(older_edition());
    let new = by_id(current_edition());
    let mut added: Vec<&Entity> = new
        .values()
        .filter(|e| !old.contains_key(&e.entity_id()))
        .collect();
    let mut removed: Vec<&Entity> = old
        .values()
        .filter(|e| !new.contains_key(&e.entity_id()))
        .collect();
    let mut changed: Vec<&Entity> = new
        .values()
        .filter(|e| old.get(&e.entity_id()).is_some_and(|o| o != *e))
        .collect();
    let mut same: Vec<&Entity> = new
        .values()
        .filter(|e| old.get(&e.entity_id()) == Some(*e))
        .collect();
    for group in [&mut added, &mut removed, &mut changed, &mut same] {
        group.sort_by_key(|e| e.entity_id());
    }
    assert!(
        added.len() > 100 && removed.len() > 10,
        "{} {}",
        added.len(),
        removed.len()
    );
    let mut names: Vec<String> = Vec::new();
    for (group, take) in [(&added, 120), (&removed, 60), (&changed, 60), (&same, 60)] {
        let step = (group.len() / take).max(1);
        names.extend(
            group
                .iter()
                .step_by(step)
                .take(take)
                .map(|e| e.primary_name.clone()),
        );
    }
    names.extend(["Zyxwv Qqqqq Unlisted".to_owned(), "Maria Rossi".to_owned()]);
    names
}

/// A store whose OFAC SDN is the older edition, monitored, with the watchlist loaded: made
/// once, copied for each test.
async fn before_update() -> (tempfile::TempDir, LocalService) {
    static TEMPLATE: tokio::sync::OnceCell<(tempfile::TempDir, LocalService)> =
        tokio::sync::OnceCell::const_new();
    let (template, _keep) = TEMPLATE
        .get_or_init(|| async {
            let (dir, svc) = with_older_edition().await;
            let names = watchlist_names();
            let summary = svc
                .import_favorites(FavoriteImport {
                    names: names
                        .iter()
                        .map(|n| FavoriteRequest {
                            name: n.clone(),
                            kind: None,
                            note: None,
                            date_of_birth: None,
                            country: None,
                        })
                        .collect(),
                })
                .await
                .unwrap();
            assert!(summary.added > 250, "{summary:?}");
            (dir, svc)
        })
        .await;
    let dir = tempfile::tempdir().unwrap();
    for file in ["sanctions.db", "sanctions.db-wal"] {
        let from = template.path().join(file);
        if from.exists() {
            std::fs::copy(&from, dir.path().join(file)).unwrap();
        }
    }
    let db = dir.path().join("sanctions.db");
    let svc = tokio::task::spawn_blocking(move || LocalService::open(&db, "analyst1"))
        .await
        .unwrap()
        .unwrap();
    (dir, svc)
}

async fn import_current(
    svc: &LocalService,
    mode: RescreenMode,
) -> sanctions_api::favorites::RescreenSummary {
    import_current_list(svc, ListCode::OfacSdn, mode).await
}

/// The current edition of `list` imported (`../shared/data/lists`), then the watchlist
/// monitored in `mode`.
async fn import_current_list(
    svc: &LocalService,
    list: ListCode,
    mode: RescreenMode,
) -> sanctions_api::favorites::RescreenSummary {
    import_list(svc, list, shared().join("lists").join(list.code()), mode).await
}

/// Imports `list` from the folder `from`, then monitors the update in `mode`.
async fn import_list(
    svc: &LocalService,
    list: ListCode,
    from: std::path::PathBuf,
    mode: RescreenMode,
) -> sanctions_api::favorites::RescreenSummary {
    let folder = layout(&[(list, from)]);
    let outcomes = sanctions_service::ingest::import_dir_with(
        &mut *svc.repository().list_sink(),
        folder.path(),
        &[list],
        &permissive(),
    )
    .unwrap();
    assert!(outcomes.iter().all(|o| !o.failed()), "{outcomes:?}");
    svc.monitor_with(mode).await.unwrap()
}

/// favorite id -> matched entity ids.
async fn matches(svc: &LocalService) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    let mut cursor = None;
    loop {
        let page = svc.favorites(cursor, Some(500)).await.unwrap();
        for f in &page.items {
            out.insert(f.id.clone(), f.matched_entity_ids.iter().cloned().collect());
        }
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return out,
        }
    }
}

/// favorite id -> entity ids of its `favorite.match` alerts created after `after`.
async fn favorite_alerts(
    svc: &LocalService,
    known: &BTreeSet<String>,
) -> BTreeMap<String, Vec<BTreeSet<String>>> {
    let page = svc
        .alerts(AlertQuery {
            kind: Some(AlertKind::FavoriteMatch),
            limit: Some(500),
            ..AlertQuery::default()
        })
        .await
        .unwrap();
    let mut out: BTreeMap<String, Vec<BTreeSet<String>>> = BTreeMap::new();
    for alert in page.items.into_iter().filter(|a| !known.contains(&a.id)) {
        out.entry(alert.favorite_id.unwrap())
            .or_default()
            .push(alert.entity_ids.into_iter().collect());
    }
    out
}

async fn alert_ids(svc: &LocalService) -> BTreeSet<String> {
    let page = svc
        .alerts(AlertQuery {
            limit: Some(500),
            ..AlertQuery::default()
        })
        .await
        .unwrap();
    page.items.into_iter().map(|a| a.id).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_update_alerts_each_favorite_that_gained_once_and_records_the_lost() {
    let (_dir, svc) = before_update().await;
    let before = matches(&svc).await;
    let known = alert_ids(&svc).await;
    let summary = import_current(&svc, RescreenMode::Full).await;
    let after = matches(&svc).await;
    let alerts = favorite_alerts(&svc, &known).await;

    let mut gained_somewhere = 0;
    let mut lost_somewhere = 0;
    let repo = svc.repository();
    for (favorite, now) in &after {
        let was = &before[favorite];
        let gained: BTreeSet<String> = now.difference(was).cloned().collect();
        let lost: BTreeSet<String> = was.difference(now).cloned().collect();
        let got = alerts.get(favorite).cloned().unwrap_or_default();
        if gained.is_empty() {
            assert!(
                got.is_empty(),
                "{favorite} gained nothing but was alerted: {got:?}"
            );
        } else {
            gained_somewhere += 1;
            assert_eq!(
                got,
                vec![gained.clone()],
                "{favorite}: one alert naming exactly the new entries"
            );
        }
        if !lost.is_empty() {
            lost_somewhere += 1;
            let changes = repo.favorite_changes(favorite).unwrap();
            for entity in &lost {
                assert!(
                    changes.iter().any(|(e, c, _)| e == entity && c == "lost"),
                    "{favorite} lost {entity} unrecorded: {changes:?}"
                );
            }
        }
    }
    assert!(
        gained_somewhere >= 50,
        "only {gained_somewhere} favorites gained"
    );
    assert!(
        lost_somewhere >= 10,
        "only {lost_somewhere} favorites lost a match"
    );
    assert_eq!(summary.alert_ids.len(), gained_somewhere);

    // A list.updated alert for the update, naming its list.
    let list_alerts = svc
        .alerts(AlertQuery {
            kind: Some(AlertKind::ListUpdated),
            ..AlertQuery::default()
        })
        .await
        .unwrap();
    assert!(
        list_alerts.items[0].title.starts_with("OFAC SDN: "),
        "{:?}",
        list_alerts.items[0]
    );

    // Again, with nothing new: nothing is created.
    let known = alert_ids(&svc).await;
    let again = svc.monitor().await.unwrap();
    assert_eq!(again.run_id, None);
    let manual = svc.rescreen().await.unwrap();
    assert_eq!(
        (manual.changed, manual.alert_ids.len()),
        (0, 0),
        "{manual:?}"
    );
    assert_eq!(alert_ids(&svc).await, known);

    // Alerts are acknowledged, then resolved, with notes; resolved is final.
    let id = summary.alert_ids[0].clone();
    let ack = svc
        .set_alert_status(
            &id,
            AlertStatusRequest {
                status: AlertStatus::Acknowledged,
                note: "looking".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(ack.status, AlertStatus::Acknowledged);
    svc.set_alert_status(
        &id,
        AlertStatusRequest {
            status: AlertStatus::Resolved,
            note: "cleared".into(),
        },
    )
    .await
    .unwrap();
    let err = svc
        .set_alert_status(
            &id,
            AlertStatusRequest {
                status: AlertStatus::Acknowledged,
                note: "x".into(),
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.status(), 422, "{err}");
    let err = svc
        .set_alert_status(
            &id,
            AlertStatusRequest {
                status: AlertStatus::Resolved,
                note: " ".into(),
            },
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("note"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn incremental_and_full_rescreens_give_the_same_alerts() {
    let (_full_dir, full) = before_update().await;
    let (_inc_dir, incremental) = before_update().await;
    let full_known = alert_ids(&full).await;
    let inc_known = alert_ids(&incremental).await;
    let full_summary = import_current(&full, RescreenMode::Full).await;
    let inc_summary = import_current(&incremental, RescreenMode::Incremental).await;
    assert_eq!(inc_summary.mode, "incremental");
    assert!(
        inc_summary.screened < full_summary.screened,
        "{inc_summary:?} vs {full_summary:?}"
    );

    // Favorites have different ids in the two stores: compare by name.
    let names = |svc: &LocalService| {
        let svc = svc.clone();
        async move {
            let page = svc.favorites(None, Some(500)).await.unwrap();
            page.items
                .into_iter()
                .map(|f| (f.id, f.name))
                .collect::<HashMap<String, String>>()
        }
    };
    let by_name = |alerts: BTreeMap<String, Vec<BTreeSet<String>>>,
                   names: HashMap<String, String>| {
        alerts
            .into_iter()
            .map(|(id, sets)| (names[&id].clone(), sets))
            .collect::<BTreeMap<_, _>>()
    };
    let full_alerts = by_name(
        favorite_alerts(&full, &full_known).await,
        names(&full).await,
    );
    let inc_alerts = by_name(
        favorite_alerts(&incremental, &inc_known).await,
        names(&incremental).await,
    );
    assert!(!full_alerts.is_empty());
    assert_eq!(inc_alerts, full_alerts);
    let full_after: BTreeSet<BTreeSet<String>> = matches(&full).await.into_values().collect();
    let inc_after: BTreeSet<BTreeSet<String>> = matches(&incremental).await.into_values().collect();
    assert_eq!(inc_after, full_after, "the matched sets after both runs");
}

/// Names resembling the entries the current edition added, as customers write them: with a
/// typo, the words reordered, an initial, two words joined, a word added (some with the
/// entry's date of birth, which adds to the score), and customers of
/// `scripts/gen_watchlist.py` around them.
fn resembling_names() -> Vec<FavoriteRequest> {
    let old = by_id(older_edition());
    let mut added: Vec<Entity> = current_edition()
        .into_iter()
        .filter(|e| !old.contains_key(&e.entity_id()))
        .collect();
    added.sort_by_key(|e| e.entity_id());
    let step = (added.len() / 80).max(1);
    let mut out = Vec::new();
    for (n, entity) in added.iter().step_by(step).take(80).enumerate() {
        let dob = sanctions_model::EntityNames::of(entity)
            .facts
            .birth_dates
            .iter()
            .find(|d| !matches!(d, sanctions_model::DateSpec::Range { .. }))
            .map(|d| d.iso());
        for (name, with_dob) in name_variants(&entity.primary_name, n) {
            if !sanctions_engine::has_something_to_screen(&name, true) {
                continue;
            }
            out.push(FavoriteRequest {
                name,
                kind: None,
                note: None,
                date_of_birth: if with_dob { dob.clone() } else { None },
                country: None,
            });
        }
    }
    let generated = std::process::Command::new("python3")
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen_watchlist.py"))
        .args(["300", "--seed", "25"])
        .output()
        .expect("python3 runs scripts/gen_watchlist.py");
    assert!(generated.status.success());
    let text = String::from_utf8(generated.stdout).unwrap();
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        if let [_, name, _, country] = cells[..] {
            out.push(FavoriteRequest {
                name: name.to_owned(),
                kind: None,
                note: None,
                date_of_birth: None,
                country: Some(country.to_owned()),
            });
        }
    }
    out
}

/// Variants of a listed name, each with whether it is given the entry's date of birth.
fn name_variants(name: &str, seed: usize) -> Vec<(String, bool)> {
    let words: Vec<String> = name
        .split([' ', ','])
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    let extra = ["Karimi", "Olga", "Smith", "Trading"][seed % 4];
    let mut out = vec![(format!("{} {extra}", words.join(" ")), true)];
    let mut typo = words.clone();
    if let Some(w) = typo
        .iter_mut()
        .filter(|w| w.is_ascii())
        .max_by_key(|w| w.len())
    {
        let at = w.len() / 2;
        w.replace_range(at..=at, "E");
    }
    out.push((typo.join(" "), seed.is_multiple_of(2)));
    if words.len() > 1 {
        let mut reordered = words.clone();
        reordered.rotate_left(1);
        out.push((reordered.join(" "), false));
        let initials: Vec<String> = words[..words.len() - 1]
            .iter()
            .map(|w| w.chars().take(1).collect())
            .chain(words.last().cloned())
            .collect();
        out.push((initials.join(" "), true));
        out.push((
            format!("{}{} {}", words[0], words[1], words[2..].join(" ")),
            false,
        ));
    }
    out
}

/// A store with the older OFAC SDN edition and `favorites` on the watchlist.
async fn before_update_with(favorites: Vec<FavoriteRequest>) -> (tempfile::TempDir, LocalService) {
    let (dir, svc) = with_older_edition().await;
    svc.import_favorites(FavoriteImport { names: favorites })
        .await
        .unwrap();
    (dir, svc)
}

/// A store with the older OFAC SDN edition imported.
async fn with_older_edition() -> (tempfile::TempDir, LocalService) {
    let (dir, svc) = service().await;
    let outcomes = import_older_ofac(&svc).await;
    assert!(outcomes.iter().all(|o| !o.failed()), "{outcomes:?}");
    (dir, svc)
}

/// favorite name -> entity ids of each `favorite.match` alert not in `known` (every page).
async fn alerts_by_name(
    svc: &LocalService,
    known: &BTreeSet<String>,
) -> BTreeMap<String, BTreeSet<BTreeSet<String>>> {
    let names: HashMap<String, String> = {
        let mut out = HashMap::new();
        let mut cursor = None;
        loop {
            let page = svc.favorites(cursor, Some(500)).await.unwrap();
            out.extend(page.items.into_iter().map(|f| (f.id, f.name)));
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break out,
            }
        }
    };
    let page = svc
        .alerts(AlertQuery {
            kind: Some(AlertKind::FavoriteMatch),
            limit: Some(500),
            ..AlertQuery::default()
        })
        .await
        .unwrap();
    assert!(page.items.len() < 500, "more alerts than one page");
    let mut out: BTreeMap<String, BTreeSet<BTreeSet<String>>> = BTreeMap::new();
    for alert in page.items.into_iter().filter(|a| !known.contains(&a.id)) {
        out.entry(names[&alert.favorite_id.unwrap()].clone())
            .or_default()
            .insert(alert.entity_ids.into_iter().collect());
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn names_resembling_the_added_entries_alert_alike_incremental_and_full() {
    let favorites = resembling_names();
    assert!(favorites.len() > 500, "{}", favorites.len());
    let (_full_dir, full) = before_update_with(favorites.clone()).await;
    let (_inc_dir, incremental) = before_update_with(favorites).await;
    let full_known = alert_ids(&full).await;
    let inc_known = alert_ids(&incremental).await;
    let full_summary = import_current(&full, RescreenMode::Full).await;
    let inc_summary = import_current(&incremental, RescreenMode::Incremental).await;
    assert_eq!(inc_summary.mode, "incremental");
    let full_alerts = alerts_by_name(&full, &full_known).await;
    let inc_alerts = alerts_by_name(&incremental, &inc_known).await;
    assert!(full_alerts.len() >= 100, "{}", full_alerts.len());
    assert_eq!(inc_alerts, full_alerts);
    let full_after: BTreeSet<BTreeSet<String>> = matches(&full).await.into_values().collect();
    let inc_after: BTreeSet<BTreeSet<String>> = matches(&incremental).await.into_values().collect();
    assert_eq!(inc_after, full_after, "the matched sets after both runs");
    assert!(
        inc_summary.screened < full_summary.screened,
        "{} of {} screened",
        inc_summary.screened,
        full_summary.screened
    );
}

/// Customers of `scripts/gen_watchlist.py` (300,000 and 1,000,000 rows, imported by
/// `watchlist import`: name and type, no country) whose score against
/// an entry the update did NOT change crosses the threshold when the update changes the
/// token weights (`ln(1 + names / df)` is the whole index's): a full re-screen after an
/// incremental run that selected only by the changed entries alerted on the first three
/// (`Weihua Du` -> `ofac_sdn:30516`, `Du Yonghao` -> `ofac_sdn:41716`, `Sergei L. Ivanev` ->
/// `au_dfat:2693`, `uk_hmt:15068`) and took a match from the fourth (`ofac_sdn:22609`).
fn drifting_customers() -> Vec<FavoriteRequest> {
    ["Weihua Du", "Du Yonghao", "Sergei L. Ivanev", "Li Honglin"]
        .into_iter()
        .map(|name| FavoriteRequest {
            name: name.to_owned(),
            kind: Some(sanctions_api::screening::KindFilter::Individual),
            note: None,
            date_of_birth: None,
            country: None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_rescreen_after_the_incremental_one_changes_nothing() {
    let mut favorites = drifting_customers();
    favorites.extend(watchlist_names().into_iter().map(|name| FavoriteRequest {
        name,
        kind: None,
        note: None,
        date_of_birth: None,
        country: None,
    }));
    let (_dir, svc) = before_update_with(favorites).await;
    let known = alert_ids(&svc).await;
    let incremental = import_current(&svc, RescreenMode::Incremental).await;
    assert_eq!(incremental.mode, "incremental");
    let raised = alerts_by_name(&svc, &known).await;
    // The drift is really there: `Weihua Du` alerts on an entry the update left alone.
    let weihua: BTreeSet<String> = raised
        .get("Weihua Du")
        .into_iter()
        .flatten()
        .flatten()
        .cloned()
        .collect();
    assert!(weihua.contains("ofac_sdn:30516"), "{raised:?}");
    let full = svc.rescreen().await.unwrap();
    assert_eq!(full.mode, "full");
    assert_eq!(
        (full.changed, full.alert_ids.len()),
        (0, 0),
        "a full re-screen after the incremental run: {full:?}; the incremental run: \
         {incremental:?}"
    );
}

/// The older edition with [`resembling_names`] and [`drifting_customers`] on the watchlist.
async fn resembling_and_drifting() -> (tempfile::TempDir, LocalService) {
    let mut favorites = resembling_names();
    favorites.extend(drifting_customers());
    before_update_with(favorites).await
}

/// Two list updates in a row, each monitored incrementally: the current OFAC SDN, then the
/// UN list's first import. The second run counts the kept values from the drift of both (the
/// first's recorded): a full re-screen after both changes nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_full_rescreen_after_two_incremental_runs_changes_nothing() {
    let (_dir, svc) = resembling_and_drifting().await;
    let first = import_current(&svc, RescreenMode::Incremental).await;
    let second = import_current_list(&svc, ListCode::Un, RescreenMode::Incremental).await;
    assert_eq!(
        (first.mode.as_str(), second.mode.as_str()),
        ("incremental", "incremental")
    );
    assert!(second.screened < second.favorites, "{second:?}");
    let full = svc.rescreen().await.unwrap();
    assert_eq!(full.mode, "full");
    assert_eq!(
        (full.changed, full.alert_ids.len()),
        (0, 0),
        "a full re-screen after two incremental runs: {full:?}; they: {first:?}, {second:?}"
    );
}

/// The values kept after an incremental run bound what a full re-screen then finds, for
/// every favorite: its nearest miss (at least 40) no higher than kept, its lowest match (or
/// the stand-in for none) no lower, both counted at the index's cumulative drift.
#[tokio::test(flavor = "multi_thread")]
async fn values_kept_by_an_incremental_run_bound_a_full_rescreens() {
    let (_dir, svc) = resembling_and_drifting().await;
    import_current(&svc, RescreenMode::Incremental).await;
    let kept = crate::common::kept_nearness(svc.repository());
    let drift = recorded_drift(&svc);
    let full = svc.rescreen().await.unwrap();
    assert_eq!((full.changed, full.alert_ids.len()), (0, 0), "{full:?}");
    let found = crate::common::kept_nearness(svc.repository());
    assert!(found.len() > 500, "{}", found.len());
    let near = |n: f64| (n + drift).max(40.0);
    for (id, now) in &found {
        let before = kept[id];
        assert!(
            near(now.near) <= near(before.near) + 1e-3,
            "{id}: {now:?} {before:?}"
        );
        assert!(now.low >= before.low - 1e-3, "{id}: {now:?} {before:?}");
    }
}

/// The current OFAC SDN edition without one entry (the first individual with no address,
/// alias or comment rows), in a folder of its own: an update that removes one entry.
fn current_without_one() -> tempfile::TempDir {
    let source = shared().join("lists/ofac_sdn");
    let dir = tempfile::tempdir().unwrap();
    let read = |file: &str| std::fs::read(source.join(file)).unwrap();
    let ids = |file: &str| -> BTreeSet<Vec<u8>> {
        read(file)
            .split(|b| *b == b'\n')
            .filter_map(|line| line.split(|b| *b == b',').next().map(<[u8]>::to_vec))
            .collect()
    };
    let others: BTreeSet<Vec<u8>> = ["add.csv", "alt.csv", "sdn_comments.csv"]
        .iter()
        .flat_map(|f| ids(f))
        .collect();
    let sdn = read("sdn.csv");
    let lines: Vec<&[u8]> = sdn.split_inclusive(|b| *b == b'\n').collect();
    let gone = lines
        .iter()
        .position(|line| {
            let id = line.split(|b| *b == b',').next().unwrap_or_default();
            !others.contains(id) && line.windows(12).any(|w| w == b"\"individual\"")
        })
        .expect("an individual with no other rows in the current SDN edition");
    let kept: Vec<u8> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != gone)
        .flat_map(|(_, line)| line.iter().copied())
        .collect();
    std::fs::write(dir.path().join("sdn.csv"), kept).unwrap();
    for file in ["add.csv", "alt.csv", "sdn_comments.csv"] {
        std::fs::copy(source.join(file), dir.path().join(file)).unwrap();
    }
    dir
}

/// The cumulative drift recorded (`near_drift`), in points.
fn recorded_drift(svc: &LocalService) -> f64 {
    svc.repository().marker("near_drift").unwrap().unwrap() as f64 / 1e6
}

/// A large update, then one that removes one entry, each monitored incrementally. The
/// second run moves few words apart, so it chooses a narrower room around the drift's band
/// than the default (3 %, at least 8.6 points): the drift it adds for every favorite is a
/// fraction of the first's. A full re-screen after both changes nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_small_update_adds_less_drift_than_a_large_one_and_a_full_rescreen_changes_nothing() {
    let (_dir, svc) = resembling_and_drifting().await;
    let first = import_current(&svc, RescreenMode::Incremental).await;
    let after_first = recorded_drift(&svc);
    let smaller = current_without_one();
    let from = smaller.path().to_path_buf();
    let second = import_list(&svc, ListCode::OfacSdn, from, RescreenMode::Incremental).await;
    assert_eq!(
        (first.mode.as_str(), second.mode.as_str()),
        ("incremental", "incremental")
    );
    let added = recorded_drift(&svc) - after_first;
    assert!(
        after_first > 8.6 && added < 4.0,
        "drift after the large update {after_first}, added by the small one {added}"
    );
    assert!(
        second.screened < first.screened,
        "{second:?} after {first:?}"
    );
    let full = svc.rescreen().await.unwrap();
    assert_eq!(
        (full.changed, full.alert_ids.len()),
        (0, 0),
        "a full re-screen after both: {full:?}; they: {first:?}, {second:?}"
    );
}
