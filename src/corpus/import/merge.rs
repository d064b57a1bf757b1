//! Repeats: a record that names the same paper as an earlier one (same name and no differing
//! identifier, or same identifier and a name in common) is merged into it. Apart from reading
//! because the rule compares every record with those before it, whatever their files.

use std::collections::HashSet;

use super::super::error::Problem;
use super::super::fields;
use super::super::paper::Paper;
use super::Import;
use crate::text::name_key;

impl Import {
    /// Drop each record that repeats an earlier one: an awesome list files a paper under two
    /// sections (often once under its full title and once under its short name), an export
    /// holds it twice, two lists of one field share papers. Left in, the repeat is recommended
    /// as the paper's own best related work and takes a second place in every list it enters.
    ///
    /// A repeat shares a name (title or alias, as [`name_key`] compares names) with an earlier
    /// record and has no arXiv id, DOI or link that differs from that record's; or it has the
    /// arXiv id or DOI of an earlier record and a name in common with it, the short name before
    /// a title's colon included ([`names_agree`]). One identifier under unrelated names is a
    /// clash, not a repeat: both records stay, with a warning. The first listing is kept, plus
    /// the repeat's other names as aliases (every name the file used still finds the paper), its
    /// note and summary where they say something else, and its section in `also_topics`. Under
    /// `--strict` a repeat under another name is a problem (one under the same name already is:
    /// its title is ambiguous).
    pub(super) fn merge_repeats(&mut self) {
        use std::collections::HashMap;
        let mut by_name: HashMap<String, usize> = HashMap::new();
        let mut by_identifier: HashMap<String, usize> = HashMap::new();
        let mut merged: HashSet<usize> = HashSet::new();
        for i in 0..self.entries.len() {
            let p = &self.entries[i].1;
            let keys = name_keys(p);
            let identifiers = identifiers(p);
            let same_identifier = identifiers
                .iter()
                .find_map(|k| by_identifier.get(k).map(|&j| (j, k.clone())));
            let same_name = keys.iter().find_map(|k| by_name.get(k).copied());
            let (j, shared) = match (same_identifier, same_name) {
                // The same name and no identifier that differs: the plainest repeat.
                (_, Some(j)) if same_paper(&self.entries[j].1, p) => (j, None),
                (Some((j, identifier)), _) if names_agree(&self.entries[j].1, p) => {
                    (j, Some(identifier))
                }
                (Some((j, identifier)), _) => {
                    // Two names with one identifier: one listing's link is likely wrong (a
                    // list's "ToRL" linking R1-Searcher's arXiv page). Merging would lose a
                    // paper; both stay, and the user hears of it.
                    let ((fi, li), (fj, lj)) = (&self.entries[i].0, &self.entries[j].0);
                    self.tally.clashes.push(format!(
                        "{:?} at {}:{li} and {:?} at {}:{lj} ({})",
                        p.title,
                        fi.display(),
                        self.entries[j].1.title,
                        fj.display(),
                        identifier.replace(':', " ")
                    ));
                    // A later listing under this record's own name repeats it, not the other.
                    for k in keys {
                        by_name.entry(k).or_insert(i);
                    }
                    continue;
                }
                (None, Some(_)) => continue,
                (None, None) => {
                    for k in keys {
                        by_name.entry(k).or_insert(i);
                    }
                    for k in identifiers {
                        by_identifier.entry(k).or_insert(i);
                    }
                    continue;
                }
            };
            let ((fi, li), (fj, lj)) = (&self.entries[i].0, &self.entries[j].0);
            let (title, first_title) = (&p.title, &self.entries[j].1.title);
            let how = match &shared {
                Some(identifier) if name_key(title) != name_key(first_title) => {
                    format!(
                        " as {first_title:?}, the same {}",
                        identifier.replace(':', " ")
                    )
                }
                _ => String::new(),
            };
            // A year the two listings disagree on is said: the first listing's is kept.
            let conflict = match (p.year, self.entries[j].1.year) {
                (Some(here), Some(first)) if here != first => {
                    format!("; its year {here} differs from the first's {first}, which is kept")
                }
                _ => String::new(),
            };
            let note = format!(
                "{title:?} at {}:{li} (first at {}:{lj}{how}{conflict})",
                fi.display(),
                fj.display()
            );
            if self.options.strict {
                if shared.is_some() && !how.is_empty() {
                    self.problems.push(Problem {
                        path: fi.clone(),
                        line: *li,
                        message: format!(
                            "repeats the paper at {}:{lj} ({first_title:?}, the same {}); \
                             keep one listing, or drop --strict to merge them",
                            fj.display(),
                            shared.as_deref().unwrap_or_default().replace(':', " ")
                        ),
                    });
                }
                continue;
            }
            merged.insert(i);
            self.tally.repeats.push(note);
            // The repeat's names join the kept record, so each still resolves to the paper.
            let known: HashSet<String> = name_keys(&self.entries[j].1).into_iter().collect();
            let mut extra: Vec<String> = Vec::new();
            // So does its own id when the source gave one (a co-author's citation key): `like
            // KEY`, `builds_on` and facet files name papers by it. Ids made from the title are
            // names already.
            let repeat = &self.entries[i].1;
            let made = crate::corpus::markdown::slugify(&repeat.title);
            let own_id = (!repeat.id.starts_with(&made) && !repeat.id.starts_with("paper-"))
                .then_some(&repeat.id);
            for name in std::iter::once(&repeat.title)
                .chain(&repeat.aliases)
                .chain(own_id)
            {
                let k = name_key(name);
                if !k.is_empty() && !known.contains(&k) && !extra.iter().any(|e| name_key(e) == k) {
                    extra.push(name.clone());
                }
            }
            for k in keys {
                by_name.entry(k).or_insert(j);
            }
            for k in identifiers {
                by_identifier.entry(k).or_insert(j);
            }
            self.entries[j].1.aliases.extend(extra);
            // Its note is kept too: two sections of a list say different things of one paper.
            let (highlight, summary) = {
                let r = &self.entries[i].1;
                (r.highlight.clone(), r.summary.clone())
            };
            let topics: Vec<String> = {
                let r = &self.entries[i].1;
                std::iter::once(&r.topic)
                    .chain(&r.also_topics)
                    .filter(|t| !t.trim().is_empty())
                    .cloned()
                    .collect()
            };
            let repeat = self.entries[i].1.clone();
            let kept = &mut self.entries[j].1;
            append_new(&mut kept.highlight, &highlight);
            append_new(&mut kept.summary, &summary);
            fill_missing(kept, repeat);
            for t in topics {
                if t != kept.topic && !kept.also_topics.contains(&t) {
                    kept.also_topics.push(t);
                }
            }
        }
        let keep: Vec<bool> = (0..self.entries.len())
            .map(|i| !merged.contains(&i))
            .collect();
        let mut k = keep.iter();
        self.entries
            .retain(|_| *k.next().expect("one flag per entry"));
        let mut k = keep.iter();
        self.derived
            .retain(|_| *k.next().expect("one flag per entry"));
    }
}

/// What the first listing lacks and the repeat says: a year, identifiers, addresses, authors,
/// keywords (a merge keeps every fact either listing gave).
fn fill_missing(kept: &mut Paper, repeat: Paper) {
    fn or(into: &mut Option<String>, from: Option<String>) {
        if into.is_none() {
            *into = from;
        }
    }
    kept.year = kept.year.or(repeat.year);
    or(&mut kept.arxiv, repeat.arxiv);
    or(&mut kept.doi, repeat.doi);
    or(&mut kept.url, repeat.url);
    or(&mut kept.link, repeat.link);
    or(&mut kept.code, repeat.code);
    or(&mut kept.authors, repeat.authors);
    for k in repeat.keywords {
        if !kept.keywords.contains(&k) {
            kept.keywords.push(k);
        }
    }
}

/// `text` after `into` (a space between), unless `into` already holds it or the field would
/// outgrow what a field may hold ([`fields::MAX_FIELD_BYTES`]: a paper listed a thousand
/// times must not make one text a thousand times that size; the first notes are kept).
fn append_new(into: &mut String, text: &str) {
    if text.is_empty()
        || into.contains(text)
        || into.len() + 1 + text.len() > fields::MAX_FIELD_BYTES
    {
        return;
    }
    if !into.is_empty() {
        into.push(' ');
    }
    into.push_str(text);
}

/// Whether two records with one identifier go by one name: a name of one (title or alias) is
/// a name of the other, or the short name before a title's colon is ("TTRL" and "TTRL:
/// Test-Time Reinforcement Learning").
fn names_agree(a: &Paper, b: &Paper) -> bool {
    let names = |p: &Paper| -> HashSet<String> {
        let mut out: HashSet<String> = name_keys(p).into_iter().collect();
        if let Some((short, _)) = p.title.split_once(':') {
            let k = name_key(short);
            if !k.is_empty() {
                out.insert(k);
            }
        }
        out
    };
    !names(a).is_disjoint(&names(b))
}

/// The keys a record's names are compared by: its title and aliases, as [`name_key`] gives them.
fn name_keys(p: &Paper) -> Vec<String> {
    std::iter::once(&p.title)
        .chain(&p.aliases)
        .map(|n| name_key(n))
        .filter(|k| !k.is_empty())
        .collect()
}

/// The identifiers that name one paper whatever its title: `arXiv:<id>` from the arXiv field or
/// an arXiv address, `DOI:<doi>` (lower case, as DOIs compare) from the DOI field or a doi.org
/// address.
fn identifiers(p: &Paper) -> Vec<String> {
    let places = || {
        [&p.arxiv, &p.doi, &p.url, &p.link]
            .into_iter()
            .flatten()
            .map(String::as_str)
    };
    let mut out: Vec<String> = places()
        .filter_map(fields::normalize_arxiv)
        .map(|id| format!("arXiv:{id}"))
        .chain(
            places()
                .filter_map(fields::normalize_doi)
                .map(|d| format!("DOI:{}", d.to_lowercase())),
        )
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether two records with the same title are one paper: no identifier both have differs (an
/// arXiv address is compared by its id, whatever the version or abs/pdf form).
fn same_paper(a: &Paper, b: &Paper) -> bool {
    let norm = |s: &str| {
        fields::normalize_arxiv(s).unwrap_or_else(|| s.trim().trim_end_matches('/').to_lowercase())
    };
    let agree = |x: &Option<String>, y: &Option<String>| match (x, y) {
        (Some(x), Some(y)) => norm(x) == norm(y),
        _ => true,
    };
    agree(&a.arxiv, &b.arxiv)
        && agree(&a.doi, &b.doi)
        && agree(&a.url, &b.url)
        && agree(&a.link, &b.link)
}
