//! List metadata and entries: `GET /v1/lists`, `GET /v1/lists/{list}/updates`, `sanctions show`,
//! `sanctions lists import|update --json`.
//!
//! One vocabulary everywhere: `list_code` for a list's code, `list_name` for its display name,
//! `programmes` for sanctions programmes or regimes; except where the spec names the wire
//! fields: `code`/`name` in [`ListInfo`] and `list` for a match's display name.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::screening::KindFilter;
use crate::model::{
    Address, Alias, DateSpec, Entity, EntityKind, IdDocument, ListCode, NameParts, SourceFile,
    UpdateRecord,
};

/// One element of `data` of `GET /v1/lists` and of `sanctions lists --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ListInfo {
    /// The list's code (the spec's `code`).
    #[serde(rename = "code")]
    pub list_code: ListCode,
    /// Display name (the spec's `name`).
    #[serde(rename = "name")]
    pub list_name: String,
    /// Entities on the list.
    pub count: u64,
    /// When the list was last imported or checked, RFC 3339 UTC; null if never.
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
    /// The publication date of the imported files, `YYYY-MM-DD`, when they state one.
    pub published: Option<String>,
    /// The id of the list's last update record; null if never imported.
    pub update_id: Option<i64>,
}

/// One update record of one list: `sanctions lists updates CODE --json`, and the `update` of
/// an imported list in `lists import|update --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct UpdateInfo {
    pub update_id: i64,
    pub list_code: ListCode,
    pub list_name: String,
    /// When the import committed, RFC 3339 UTC.
    #[schema(format = DateTime)]
    pub at: String,
    /// Where the files came from. Locally `import <folder>` or `update <folder>`; over HTTP
    /// `import` or `download` and the files' names (`import: sdn.csv, add.csv`), never a
    /// path of the server's.
    pub origin: String,
    pub files: Vec<SourceFile>,
    /// The publication date the files state, `YYYY-MM-DD`.
    pub published: Option<String>,
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
    /// Entities on the list after the import.
    pub total: u64,
    /// What the parser skipped and why.
    pub notes: Vec<String>,
    /// Why the import failed, for a failed one (the list kept its previous version).
    pub failed: Option<String>,
}

impl From<UpdateRecord> for UpdateInfo {
    fn from(r: UpdateRecord) -> Self {
        UpdateInfo {
            update_id: r.id,
            list_code: r.list,
            list_name: r.list.display_name().to_owned(),
            at: r.at,
            origin: r.origin,
            files: r.files,
            published: r.published,
            added: r.added,
            removed: r.removed,
            changed: r.changed,
            total: r.total,
            notes: r.notes,
            failed: r.failed,
        }
    }
}

/// What happened to one list in `lists import|update --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportOutcome {
    pub list_code: ListCode,
    pub list_name: String,
    /// `imported`, `unchanged` (the publisher's files had not changed), `skipped` or `failed`.
    pub outcome: String,
    /// Why the list was skipped or failed.
    pub reason: Option<String>,
    /// The update record written, for an imported list.
    pub update: Option<UpdateInfo>,
}

/// One listed entry with every field: `sanctions show --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EntityRecord {
    pub entity_id: String,
    pub list_code: ListCode,
    pub list_name: String,
    /// The list's own identifier.
    pub source_id: String,
    /// `individual` or `entity`.
    #[serde(rename = "type")]
    pub entity_type: KindFilter,
    /// The finer kind: `individual`, `entity`, `vessel` or `aircraft`.
    pub kind: EntityKind,
    pub primary_name: String,
    pub aliases: Vec<Alias>,
    pub name_parts: NameParts,
    pub birth_dates: Vec<DateSpec>,
    pub birth_places: Vec<String>,
    /// ISO 3166-1 alpha-2.
    pub nationalities: Vec<String>,
    /// ISO 3166-1 alpha-2.
    pub countries: Vec<String>,
    pub addresses: Vec<Address>,
    pub identifiers: Vec<IdDocument>,
    /// Sanctions programmes or regimes.
    pub programmes: Vec<String>,
    pub listed_on: Option<String>,
    /// The last day of the listing, `YYYY-MM-DD`, when it has an end (World Bank debarments).
    pub listing_ends: Option<String>,
    pub remarks: Option<String>,
    pub source_url: Option<String>,
    pub attributes: BTreeMap<String, String>,
}

impl From<Entity> for EntityRecord {
    fn from(e: Entity) -> Self {
        EntityRecord {
            entity_id: e.entity_id(),
            list_code: e.list,
            list_name: e.list.display_name().to_owned(),
            source_id: e.source_id,
            entity_type: KindFilter::of(e.kind),
            kind: e.kind,
            primary_name: e.primary_name,
            aliases: e.aliases,
            name_parts: e.name_parts,
            birth_dates: e.birth_dates,
            birth_places: e.birth_places,
            nationalities: e.nationalities,
            countries: e.countries,
            addresses: e.addresses,
            identifiers: e.identifiers,
            programmes: e.programs,
            listed_on: e.listed_on,
            listing_ends: e.listing_ends,
            remarks: e.remarks,
            source_url: e.source_url,
            attributes: e.attributes,
        }
    }
}
