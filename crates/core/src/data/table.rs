//! Tables (docs/data-formats.md#tables): key–value infoboxes (INFOTABS) and relational tables (TabFact).
//! Every probe speaks of *rows*: a key with its values, or one record.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A table of either shape, tagged by `kind` in JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Table {
    /// An INFOTABS-style infobox: a title and ordered `key → values` rows.
    KeyValue(KeyValueTable),
    /// A TabFact-style table: a caption, a header and ordered records.
    Relational(RelationalTable),
}

/// A key–value table. Keys are unique within a table (INFOTABS stores them as JSON object keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyValueTable {
    /// Identifier examples refer to, e.g. `T1264`.
    pub id: String,
    /// The entity the infobox describes, e.g. `Breakfast in America`.
    pub title: String,
    /// Rows in their original order.
    pub rows: Vec<KeyValueRow>,
}

/// One row of a key–value table; several values make a multi-valued row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyValueRow {
    /// The row's key, e.g. `Genre`.
    pub key: String,
    /// The row's values, e.g. `["pop", "art rock", "soft rock"]`.
    pub values: Vec<String>,
}

/// A relational table: every row has one cell per header column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelationalTable {
    /// Identifier examples refer to, e.g. `2-10808681-7.html.csv`.
    pub id: String,
    /// The table's caption (TabFact's title).
    pub caption: String,
    /// Column names.
    pub header: Vec<String>,
    /// Records, each with `header.len()` cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table's identifier.
    pub fn id(&self) -> &str {
        match self {
            Table::KeyValue(t) => &t.id,
            Table::Relational(t) => &t.id,
        }
    }

    /// The title (key–value) or caption (relational).
    pub fn title(&self) -> &str {
        match self {
            Table::KeyValue(t) => &t.title,
            Table::Relational(t) => &t.caption,
        }
    }

    /// Number of rows (keys, or records).
    pub fn row_count(&self) -> usize {
        match self {
            Table::KeyValue(t) => t.rows.len(),
            Table::Relational(t) => t.rows.len(),
        }
    }
}
