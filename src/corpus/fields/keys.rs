//! The key table: every key a reading-list tool uses for a field, normalized, in priority
//! order (see the module doc of [`super`]).

/// The field a key feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    Id,
    Title,
    Aliases,
    Highlight,
    Summary,
    SeedHighlight,
    Topic,
    TopicEn,
    AlsoTopics,
    Kind,
    OpenSource,
    Link,
    Sources,
    Capability,
    Direction,
    Arxiv,
    Year,
    Url,
    Doi,
    Code,
    Authors,
    Tags,
    Keywords,
    BuildsOn,
}

/// Known keys (normalized), in priority order within each target: for single-valued targets
/// the first key present wins and later ones are reported as shadowed.
pub(super) const KEYS: &[(&str, Target)] = &[
    ("id", Target::Id),
    ("key", Target::Id),
    ("citation_key", Target::Id),
    ("citekey", Target::Id),
    ("title", Target::Title),
    ("aliases", Target::Aliases),
    ("alias", Target::Aliases),
    ("highlight", Target::Highlight),
    ("summary", Target::Summary),
    ("abstract", Target::Summary),
    ("abstract_note", Target::Summary),
    // Zotero's JSON (its API and Better BibTeX) spells it in camel case.
    ("abstractnote", Target::Summary),
    ("seed_highlight", Target::SeedHighlight),
    ("topic", Target::Topic),
    // A spreadsheet's "Section" column: the list's own sections, as `topic` holds them.
    ("section", Target::Topic),
    ("topic_en", Target::TopicEn),
    ("kind", Target::Kind),
    ("open_source", Target::OpenSource),
    ("link", Target::Link),
    ("sources", Target::Sources),
    ("capability", Target::Capability),
    ("direction", Target::Direction),
    ("arxiv", Target::Arxiv),
    ("arxiv_id", Target::Arxiv),
    ("year", Target::Year),
    ("publication_year", Target::Year),
    ("published", Target::Year),
    ("date", Target::Year),
    ("issued", Target::Year),
    ("url", Target::Url),
    ("pdf", Target::Url),
    ("pdf_url", Target::Url),
    ("doi", Target::Doi),
    ("code", Target::Code),
    ("code_url", Target::Code),
    ("authors", Target::Authors),
    ("author", Target::Authors),
    ("creators", Target::Authors),
    ("tags", Target::Tags),
    ("also_topics", Target::AlsoTopics),
    ("keywords", Target::Keywords),
    ("keyword", Target::Keywords),
    ("categories", Target::Keywords),
    ("manual_tags", Target::Keywords),
    ("automatic_tags", Target::Keywords),
    // JabRef's (and Better BibTeX's) static groups, a collection column of a spreadsheet.
    ("groups", Target::Keywords),
    ("collections", Target::Keywords),
    ("collection", Target::Keywords),
    ("builds_on", Target::BuildsOn),
];

/// Every key a record may give a field under, normalized, in priority order.
pub fn known_keys() -> impl Iterator<Item = &'static str> {
    KEYS.iter().map(|(k, _)| *k)
}

/// `Abstract Note` -> `abstract_note`.
pub fn normalize_key(key: &str) -> String {
    key.trim()
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

pub(super) fn target_of(key: &str) -> Option<(usize, Target)> {
    KEYS.iter()
        .position(|(k, _)| *k == key)
        .map(|i| (i, KEYS[i].1))
}
