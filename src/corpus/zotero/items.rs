//! The queries: every item with its type, trash and feed state; collections and membership;
//! the fields, creators and tags of the items kept.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use super::super::fields::MAX_FIELD_BYTES;
use super::record::{bounded, record_of, selected, text, without_controls};
use super::schema::{sql_error, table_exists};
use super::{MAX_ITEMS, ZoteroError, ZoteroLibrary, ZoteroOptions};

/// The fields read, by Zotero field name. Zotero stores some item types' titles under their
/// own names (a case's `caseName`, a statute's `nameOfAct`, an email's `subject`): they are
/// read as titles when `title` is absent.
const FIELDS: &[&str] = &[
    "title",
    "caseName",
    "nameOfAct",
    "subject",
    "abstractNote",
    "date",
    "DOI",
    "url",
    "extra",
    "archiveID",
];

/// One item's data as read.
#[derive(Default)]
pub(super) struct Item {
    pub(super) key: String,
    pub(super) fields: HashMap<&'static str, String>,
    /// (name, creator type) in Zotero's order.
    pub(super) creators: Vec<(String, Option<String>)>,
    pub(super) tags: Vec<String>,
    pub(super) collections: Vec<i64>,
}

pub(super) struct Reader<'a> {
    pub(super) conn: &'a Connection,
    pub(super) db: &'a Path,
}

/// One row of `items`, classified.
struct ItemRow {
    id: i64,
    key: String,
    /// The group whose library holds the item (`None`: the user's own library).
    group: Option<i64>,
    type_name: Option<String>,
    trashed: bool,
    feed: bool,
}

/// A collection: name and parent.
pub(super) struct Collection {
    pub(super) name: String,
    pub(super) parent: Option<i64>,
}

impl Reader<'_> {
    fn err(&self, e: rusqlite::Error) -> ZoteroError {
        sql_error(self.db, e)
    }

    pub(super) fn library(&self, options: &ZoteroOptions) -> Result<ZoteroLibrary, ZoteroError> {
        let count: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM items", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        let count = u64::try_from(count).unwrap_or(0);
        if count > MAX_ITEMS {
            return Err(ZoteroError::TooManyItems {
                path: self.db.into(),
                count,
            });
        }
        let collections = self.collections()?;
        let wanted = match &options.collection {
            Some(name) => Some(selected(&collections, name)?),
            None => None,
        };
        let mut library = ZoteroLibrary::default();
        let mut items: Vec<Item> = Vec::new();
        let mut index: HashMap<i64, usize> = HashMap::new();
        let membership = self.membership()?;
        let rows = self.item_rows()?;
        // A key is unique within one library only: an item of a group library whose key
        // another item also has is named by its key and group (`KEY-g123`), so that no two
        // papers share an id (one id would refuse the whole library as a duplicate).
        let mut key_count: HashMap<&str, usize> = HashMap::new();
        for row in &rows {
            *key_count.entry(row.key.as_str()).or_default() += 1;
        }
        let shared: std::collections::HashSet<String> = key_count
            .into_iter()
            .filter(|&(_, n)| n > 1)
            .map(|(k, _)| k.to_string())
            .collect();
        let mut renamed = 0usize;
        for row in rows {
            let s = &mut library.skipped;
            match row.type_name.as_deref() {
                Some("note") => s.notes += 1,
                Some("attachment") => s.attachments += 1,
                Some("annotation") => s.annotations += 1,
                _ if row.trashed => s.trashed += 1,
                _ if row.feed => s.feed_items += 1,
                _ => {
                    let in_collections: Vec<i64> = membership
                        .get(&row.id)
                        .map(|c| {
                            c.iter()
                                .copied()
                                .filter(|c| collections.contains_key(c))
                                .collect()
                        })
                        .unwrap_or_default();
                    if let Some(wanted) = &wanted
                        && !in_collections.iter().any(|c| wanted.contains(c))
                    {
                        s.outside_collection += 1;
                        continue;
                    }
                    index.insert(row.id, items.len());
                    let key = match row.group {
                        Some(group) if shared.contains(&row.key) => {
                            renamed += 1;
                            format!("{}-g{group}", row.key)
                        }
                        _ => row.key,
                    };
                    items.push(Item {
                        key,
                        collections: in_collections,
                        ..Item::default()
                    });
                }
            }
        }
        if renamed > 0 {
            library.warnings.push(format!(
                "{renamed} item(s) of group libraries share their Zotero key with an item of \
                 another library: each is named KEY-gGROUPID"
            ));
        }
        self.fill_fields(&mut items, &index, &mut library.warnings)?;
        self.fill_creators(&mut items, &index)?;
        self.fill_tags(&mut items, &index)?;
        for item in items {
            match record_of(item, &collections, wanted.as_ref(), &mut library.warnings) {
                Some(r) => library.records.push(r),
                None => library.skipped.untitled += 1,
            }
        }
        Ok(library)
    }

    /// Every item with its type name, and whether it is trashed or a feed's.
    fn item_rows(&self) -> Result<Vec<ItemRow>, ZoteroError> {
        let feeds = table_exists(self.conn, "feedItems").map_err(|e| self.err(e))?;
        let sql = format!(
            "SELECT i.itemID, i.key, t.typeName, d.itemID IS NOT NULL, {}, g.groupID
             FROM items i
             LEFT JOIN groups g ON g.libraryID = i.libraryID
             LEFT JOIN itemTypes t ON t.itemTypeID = i.itemTypeID
             LEFT JOIN deletedItems d ON d.itemID = i.itemID
             ORDER BY i.itemID",
            if feeds {
                "EXISTS (SELECT 1 FROM feedItems f WHERE f.itemID = i.itemID)"
            } else {
                "0"
            }
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(ItemRow {
                    id: r.get(0)?,
                    key: text(r.get_ref(1)?),
                    type_name: r.get(2)?,
                    trashed: r.get(3)?,
                    feed: r.get(4)?,
                    group: r.get(5)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Collections not in the trash, by id.
    fn collections(&self) -> Result<HashMap<i64, Collection>, ZoteroError> {
        let trash = table_exists(self.conn, "deletedCollections").map_err(|e| self.err(e))?;
        let sql = format!(
            "SELECT c.collectionID, c.collectionName, c.parentCollectionID FROM collections c{}",
            if trash {
                " WHERE c.collectionID NOT IN (SELECT collectionID FROM deletedCollections)"
            } else {
                ""
            }
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    Collection {
                        name: text(r.get_ref(1)?),
                        parent: r.get(2)?,
                    },
                ))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// The collections of each item, oldest collection first.
    fn membership(&self) -> Result<HashMap<i64, Vec<i64>>, ZoteroError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT itemID, collectionID FROM collectionItems ORDER BY itemID, collectionID",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let mut out: HashMap<i64, Vec<i64>> = HashMap::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let item: i64 = r.get(0).map_err(|e| self.err(e))?;
            let collection: i64 = r.get(1).map_err(|e| self.err(e))?;
            out.entry(item).or_default().push(collection);
        }
        Ok(out)
    }

    fn fill_fields(
        &self,
        items: &mut [Item],
        index: &HashMap<i64, usize>,
        warnings: &mut Vec<String>,
    ) -> Result<(), ZoteroError> {
        let names = FIELDS
            .iter()
            .map(|f| format!("'{f}'"))
            .collect::<Vec<_>>()
            .join(", ");
        // The value is cut in SQL, so an oversized value is never read whole (as bytes: SQL's
        // `substr` of text counts characters). `length` of a blob is its size in bytes.
        let sql = format!(
            "SELECT d.itemID, f.fieldName, substr(CAST(v.value AS BLOB), 1, {limit}),
                    length(CAST(v.value AS BLOB))
             FROM itemData d
             JOIN fields f ON f.fieldID = d.fieldID
             JOIN itemDataValues v ON v.valueID = d.valueID
             WHERE f.fieldName IN ({names})",
            limit = MAX_FIELD_BYTES + 4
        );
        self.for_item_rows(&sql, index, |i, r| {
            let name: String = r.get(1).map_err(|e| self.err(e))?;
            let Some(&name) = FIELDS.iter().find(|f| **f == name) else {
                return Ok(());
            };
            let bytes: Vec<u8> = match r.get_ref(2).map_err(|e| self.err(e))? {
                ValueRef::Blob(b) | ValueRef::Text(b) => b.to_vec(),
                _ => return Ok(()),
            };
            let size: i64 = r.get(3).map_err(|e| self.err(e))?;
            let read = String::from_utf8_lossy(&bytes);
            // `extra` is read line by line; an abstract keeps its paragraphs.
            let breaks = matches!(name, "abstractNote" | "extra");
            let cleaned = without_controls(&read, breaks);
            if let std::borrow::Cow::Owned(_) = cleaned
                && let Some(c) = read
                    .chars()
                    .find(|&c| c.is_control() && !(breaks && matches!(c, '\n' | '\r' | '\t')))
            {
                warnings.push(format!(
                    "{}: `{name}` held control characters (U+{:04X}); each is a space now",
                    items[i].key, c as u32
                ));
            }
            let mut value = cleaned.into_owned();
            if value.len() > MAX_FIELD_BYTES {
                let mut cut = MAX_FIELD_BYTES;
                while !value.is_char_boundary(cut) {
                    cut -= 1;
                }
                value.truncate(cut);
                warnings.push(format!(
                    "{}: `{name}` held {size} bytes, more than the {MAX_FIELD_BYTES} a field may \
                     hold; kept the first {cut}",
                    items[i].key
                ));
            }
            items[i].fields.insert(name, value);
            Ok(())
        })
    }

    fn fill_creators(
        &self,
        items: &mut [Item],
        index: &HashMap<i64, usize>,
    ) -> Result<(), ZoteroError> {
        let types = table_exists(self.conn, "creatorTypes").map_err(|e| self.err(e))?;
        let sql = format!(
            "SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode, {}
             FROM itemCreators ic
             JOIN creators c ON c.creatorID = ic.creatorID
             {}
             ORDER BY ic.itemID, ic.orderIndex",
            if types { "ct.creatorType" } else { "NULL" },
            if types {
                "LEFT JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID"
            } else {
                ""
            }
        );
        self.for_item_rows(&sql, index, |i, r| {
            let first = bounded(text(r.get_ref(1).map_err(|e| self.err(e))?));
            let last = bounded(text(r.get_ref(2).map_err(|e| self.err(e))?));
            // fieldMode 1: a one-field name (an institution), kept in lastName.
            let single: Option<i64> = r.get(3).unwrap_or(None);
            let name = if single == Some(1) || first.trim().is_empty() {
                last.trim().to_string()
            } else {
                format!("{} {}", first.trim(), last.trim())
                    .trim()
                    .to_string()
            };
            let kind: Option<String> = r.get(4).unwrap_or(None);
            if !name.is_empty() {
                items[i].creators.push((name, kind));
            }
            Ok(())
        })
    }

    fn fill_tags(
        &self,
        items: &mut [Item],
        index: &HashMap<i64, usize>,
    ) -> Result<(), ZoteroError> {
        let sql = "SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID
                   ORDER BY it.itemID, t.name";
        self.for_item_rows(sql, index, |i, r| {
            let tag = bounded(text(r.get_ref(1).map_err(|e| self.err(e))?));
            if !tag.trim().is_empty() {
                items[i].tags.push(tag.trim().to_string());
            }
            Ok(())
        })
    }

    /// Runs `sql`, whose first column is an item id, and gives each row of an item in `index`
    /// to `fill` with that item's position; the rows of other items are passed over.
    fn for_item_rows(
        &self,
        sql: &str,
        index: &HashMap<i64, usize>,
        mut fill: impl FnMut(usize, &rusqlite::Row<'_>) -> Result<(), ZoteroError>,
    ) -> Result<(), ZoteroError> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let id: i64 = r.get(0).map_err(|e| self.err(e))?;
            if let Some(&i) = index.get(&id) {
                fill(i, r)?;
            }
        }
        Ok(())
    }
}
