//! Importer for awesome-list style Markdown reading lists.
//!
//! - `#`, `##` and `###` headings set the current topic (the deepest one wins).
//! - Table rows become papers. The header row (the one followed by a `|---|` separator) names
//!   the columns: Title/Paper/Name/Method/论文 is the title, Description/Highlight/Summary/
//!   Mechanism/亮点/简介 the highlight, Link/链接 the link, Short title/Alias an alias, Year/
//!   Date the year; a `[Title](url)` title gives the paper's address. A header naming none of
//!   these (or no header) reads the first three cells as title, highlight and link.
//! - `####` headings become papers; the paragraph under them is the highlight.
//! - List items (`-`, `*`, `+` or numbered, task boxes included) that hold a link become
//!   papers: `[Title](url) - description`, the same in bold, and `Title [[paper](url)]
//!   [[code](url)]` or `"Title" *venue*. [[pdf](url)]`, where the title is the text before the
//!   first link. A list item linking to a section of the same page (`- [Agent Tuning]
//!   (#agent-tuning)`, a table of contents) is navigation, not a paper, and is returned in
//!   [`Parsed::navigation`] for the import's warning. A bullet without a link is prose.
//! - Fenced code blocks and HTML comments are skipped; `\|` in a table cell is a pipe; a
//!   description loses its badges (`![..](..)`) and keeps a link's text, not its address.
//! - Section names lose the emoji and `:shortcode:` decorations awesome lists give them.
//!
//! Ids are slugs of the titles, made unique with `-2`, `-3`, ... A `[开源]` or `[open source]`
//! marker sets `open_source`. The kind is `survey` when the title or topic says so, else `method`.

use std::collections::HashMap;
use std::path::Path;

use super::error::Problem;
use super::paper::{Kind, Paper};

mod inline;
use inline::{
    Skip, cell_title, first_link, link_text, link_url, list_item, plain, quoted_title, table_cells,
    take_code_links,
};

/// What a Markdown list gives: its papers (with their lines), its problems, and the
/// (line, text) of the table-of-contents links it skipped.
pub struct Parsed {
    pub papers: Vec<(usize, Paper)>,
    pub problems: Vec<Problem>,
    pub navigation: Vec<(usize, String)>,
}

pub fn parse(path: &Path, text: &str) -> Parsed {
    let mut list = List {
        navigation: Vec::new(),
        out: Vec::new(),
        columns: Columns::POSITIONAL,
        slugs: HashMap::new(),
        source: path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        open: None,
    };
    let mut problems = Vec::new();
    let mut topic = String::new();
    // A byte-order mark (Windows editors) would hide the first line's heading or item.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut skip = Skip::default();
    for (i, line) in lines.iter().enumerate() {
        let line_no = i + 1;
        let line = line.trim();
        if skip.skips(line) {
            continue;
        }
        if !line.starts_with('|') {
            // A table ends here; the next one brings its own header.
            list.columns = Columns::POSITIONAL;
        }
        let heading = line.chars().take_while(|&c| c == '#').count();
        if heading > 0 && line[heading..].starts_with(' ') {
            list.close();
            let name = line[heading..].trim().to_string();
            if heading >= 4 {
                list.open = Some((line_no, name, topic.clone(), Vec::new()));
            } else {
                topic = section_name(&name);
            }
        } else if line.starts_with('|') {
            list.close();
            let next_is_separator = lines.get(i + 1).is_some_and(|l| is_separator(l));
            if next_is_separator && !is_separator(line) {
                list.columns = Columns::of_header(&table_cells(line));
            }
            if !(is_separator(line) || next_is_separator) {
                // (not a header or separator row)
                if let Err(message) = list.table_row(line_no, line, &topic) {
                    problems.push(Problem {
                        path: path.to_path_buf(),
                        line: line_no,
                        message,
                    });
                }
            }
        } else if let Some(item) = list_item(line) {
            list.close();
            list.list_item(line_no, item, &topic);
        } else if let Some((_, _, _, h)) = list.open.as_mut()
            && !line.is_empty()
        {
            h.push(line.to_string());
        }
    }
    list.close();
    Parsed {
        papers: list.out,
        problems,
        navigation: list.navigation,
    }
}

/// Which cell of a table row holds what.
#[derive(Debug, Clone, Copy)]
struct Columns {
    title: usize,
    highlight: Option<usize>,
    link: Option<usize>,
    alias: Option<usize>,
    year: Option<usize>,
}

impl Columns {
    /// No header, or one that names none of the known columns: title, highlight, link.
    const POSITIONAL: Columns = Columns {
        title: 0,
        highlight: Some(1),
        link: Some(2),
        alias: None,
        year: None,
    };

    fn of_header(cells: &[String]) -> Columns {
        let find = |names: &[&str]| {
            cells.iter().position(|c| {
                let c = crate::text::fold(&link_text(c));
                let c = c.trim();
                names.contains(&c)
            })
        };
        let title = find(&[
            "title",
            "paper",
            "paper title",
            "name",
            "method",
            "论文",
            "标题",
        ]);
        let highlight = find(&[
            "description",
            "highlight",
            "summary",
            "mechanism",
            "key mechanism",
            "key idea",
            "notes",
            "亮点",
            "简介",
            "说明",
            "描述",
        ]);
        let link = find(&["link", "links", "链接"]);
        if title.is_none() && highlight.is_none() && link.is_none() {
            return Columns::POSITIONAL;
        }
        Columns {
            title: title.unwrap_or(0),
            highlight,
            link,
            alias: find(&["short title", "alias", "abbreviation", "简称"]),
            year: find(&["year", "date", "年份", "日期"]),
        }
    }
}

/// The papers of a list as it is read.
struct List {
    out: Vec<(usize, Paper)>,
    /// (line, text) of list items that link to a section of the same page
    navigation: Vec<(usize, String)>,
    /// The columns of the current table.
    columns: Columns,
    /// How many papers took each slug (for unique ids).
    slugs: HashMap<String, usize>,
    /// The file name, every paper's source.
    source: String,
    /// (line, title, topic, highlight lines) of an open `####` paper
    open: Option<(usize, String, String, Vec<String>)>,
}

impl List {
    fn push(
        &mut self,
        line: usize,
        title: &str,
        topic: &str,
        highlight: &str,
        link: Option<String>,
    ) {
        let (title, open_source) = strip_open_source(title);
        let slug = slugify(&title);
        let n = self.slugs.entry(slug.clone()).or_insert(0);
        *n += 1;
        let id = if *n == 1 { slug } else { format!("{slug}-{n}") };
        let lower = format!("{title} {topic}").to_lowercase();
        let kind = if lower.contains("survey") || lower.contains("综述") {
            Kind::Survey
        } else {
            Kind::Method
        };
        self.out.push((
            line,
            Paper {
                id,
                aliases: split_aliases(&title),
                title,
                highlight: highlight.trim().to_string(),
                topic: topic.to_string(),
                kind,
                open_source,
                link,
                sources: vec![self.source.clone()],
                ..Paper::default()
            },
        ));
    }

    /// Finish the open `####` paper, if any.
    fn close(&mut self) {
        if let Some((l, t, tp, h)) = self.open.take() {
            self.push(l, &t, &tp, &h.join(" "), None);
        }
    }

    /// A table row (not a header), read by the current table's [`Columns`].
    fn table_row(&mut self, line_no: usize, line: &str, topic: &str) -> Result<(), String> {
        let cells = table_cells(line);
        let col = self.columns;
        let cell = |i: Option<usize>| i.and_then(|i| cells.get(i)).filter(|c| !c.is_empty());
        let Some(title_cell) = cell(Some(col.title)) else {
            return Err("table row has an empty title cell".into());
        };
        let (title_cell, title_code) = take_code_links(title_cell);
        let title_cell = title_cell.as_str();
        let title = cell_title(title_cell);
        let (highlight, highlight_code) = cell(col.highlight)
            .map(|c| take_code_links(c))
            .unwrap_or_default();
        let link = cell(col.link).map(|c| link_text(c));
        self.push(line_no, &title, topic, &plain(&highlight), link);
        if let Some((_, p)) = self.out.last_mut() {
            p.code = title_code
                .or(highlight_code)
                .filter(|u| super::paper::is_http_url(u));
            p.open_source |= strip_open_source(title_cell).1;
            // The paper's address: the title's link, else the Link column's.
            p.url = [Some(title_cell), cell(col.link).map(String::as_str)]
                .into_iter()
                .flatten()
                .filter_map(link_url)
                .find(|u| super::paper::is_http_url(u));
            if let Some(alias) = cell(col.alias).map(|c| link_text(c))
                && alias != p.title
                && !p.aliases.contains(&alias)
            {
                p.aliases.push(alias);
            }
            p.year = cell(col.year).and_then(|c| year_of(c));
        }
        Ok(())
    }

    /// A list item after its marker: `[Title](url) - description` (also in bold), or `Title
    /// [[paper](url)] ...` whose title is the text before its first link. Items without a link
    /// are prose, not papers.
    fn list_item(&mut self, line_no: usize, item: &str, topic: &str) {
        let (without_code, code) = take_code_links(item);
        // An item whose only link is its code: that link stands for the paper.
        let item = if first_link(&without_code).is_some() {
            without_code.as_str()
        } else {
            item
        };
        let count = self.out.len();
        self.paper_item(line_no, item, topic);
        if self.out.len() > count
            && let Some((_, p)) = self.out.last_mut()
        {
            p.url = p.link.clone().filter(|u| super::paper::is_http_url(u));
            p.code = code.filter(|u| super::paper::is_http_url(u));
            p.open_source |= strip_open_source(item).1;
        }
    }

    /// [`List::list_item`] with the code links taken out.
    fn paper_item(&mut self, line_no: usize, item: &str, topic: &str) {
        let Some((at, text, url, after)) = first_link(item) else {
            return;
        };
        if url.trim().starts_with('#') {
            self.navigation.push((line_no, text.to_string()));
            return;
        }
        let before = item[..at].trim_end_matches('[');
        // The link is the title: what follows it describes the paper.
        let titled_by_link = |this: &mut Self| {
            let desc = after
                .trim_start_matches(['*', '_'])
                .trim()
                .trim_start_matches(['-', ':', '–', '—']);
            this.push(
                line_no,
                text,
                topic,
                &plain(desc),
                Some(url.trim().to_string()),
            );
        };
        if before.trim().trim_matches(['*', '_']).is_empty() {
            titled_by_link(self);
            return;
        }
        // `**Name**: [Full title](url) (venue)`: a short name, then the link whose text is the
        // paper's title (three words or more and longer than the name; not a bracketed
        // `[[paper](url)]` nor `[Project page](url)`); the name is kept as an alias, so both
        // find the paper.
        let (name, _) = quoted_title(before);
        let words = |t: &str| t.split_whitespace().count();
        if !item[..at].ends_with('[')
            && words(text) >= 3
            && words(text) > words(&name)
            && name.chars().any(char::is_alphanumeric)
        {
            titled_by_link(self);
            if let Some((_, p)) = self.out.last_mut()
                && !p.aliases.contains(&name)
                && crate::text::name_key(&name) != crate::text::name_key(&p.title)
            {
                p.aliases.push(name);
            }
            return;
        }
        // `Title [[paper](url)] [[code](url)]`, `"Title" *venue*. [[pdf](url)]`
        let (title, venue) = quoted_title(before);
        if title.chars().any(char::is_alphanumeric) {
            self.push(
                line_no,
                &title,
                topic,
                &plain(venue),
                Some(url.trim().to_string()),
            );
        }
    }
}

/// A section heading as a topic name: without the emoji and `:shortcode:` decorations awesome
/// lists put in front of their sections ("🎯 Agent Tuning", ":rocket: Frameworks"), which would
/// otherwise open every topic name and label. A heading of decorations only stays as it is.
fn section_name(heading: &str) -> String {
    let without_codes: String = {
        let mut out = String::new();
        let mut rest = heading;
        while let Some(start) = rest.find(':') {
            let after = &rest[start + 1..];
            let code_len = after.find(':').filter(|&end| {
                end > 0
                    && after[..end]
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_+-".contains(c))
            });
            match code_len {
                Some(end) => {
                    out.push_str(&rest[..start]);
                    rest = &after[end + 1..];
                }
                None => {
                    out.push_str(&rest[..=start]);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    };
    let cleaned = without_codes
        .chars()
        .filter(|&c| !is_decoration(c))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if cleaned.chars().any(char::is_alphanumeric) {
        cleaned
    } else {
        heading.to_string()
    }
}

/// Emoji and pictographic symbols, and the joiners and selectors that build emoji sequences.
fn is_decoration(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF      // emoji and pictographs, flags, skin tones
        | 0x2600..=0x27BF      // miscellaneous symbols, dingbats (☀, ✅, ✨)
        | 0x2B00..=0x2BFF      // arrows and symbols (⭐, ⬆)
        | 0x2300..=0x23FF      // technical symbols used as emoji (⌛, ⏩)
        | 0xFE00..=0xFE0F      // variation selectors
        | 0x200D | 0x20E3      // zero-width joiner, keycap
        | 0xE0020..=0xE007F) // tag characters
}

fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The year a cell gives ("2025", "2025-03", "Mar 2024"): its first four digits that read as a
/// year of the field.
fn year_of(cell: &str) -> Option<u16> {
    let digits: Vec<char> = cell.chars().collect();
    digits.windows(4).find_map(|w| {
        let s: String = w.iter().collect();
        s.parse::<u16>()
            .ok()
            .filter(|y| (1950..=2100).contains(y) && w.iter().all(char::is_ascii_digit))
    })
}

fn strip_open_source(title: &str) -> (String, bool) {
    let mut t = title.to_string();
    let mut open = false;
    for marker in ["[开源]", "[open source]", "[Open Source]", "[OSS]"] {
        if t.contains(marker) {
            t = t.replace(marker, "");
            open = true;
        }
    }
    (t.split_whitespace().collect::<Vec<_>>().join(" "), open)
}

/// The parts of "A / B" names, so either part finds the paper.
pub fn split_aliases(title: &str) -> Vec<String> {
    if !title.contains(" / ") {
        return Vec::new();
    }
    title
        .split(" / ")
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A stable id from a title: lowercase ASCII alphanumerics joined by '-'. Titles with no ASCII
/// letters (all-Chinese) fall back to a short hash so ids stay ASCII.
pub fn slugify(title: &str) -> String {
    let mut slug = String::new();
    for c in crate::text::fold(title).chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-').to_string();
    if slug.is_empty() {
        let h = crc32fast::hash(title.as_bytes());
        format!("paper-{h:08x}")
    } else {
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::{parse, section_name};
    use std::path::Path;

    /// (title, highlight, link) of each paper `text` gives.
    fn papers(text: &str) -> Vec<(String, String, String)> {
        parse(Path::new("list.md"), text)
            .papers
            .into_iter()
            .map(|(_, p)| (p.title, p.highlight, p.link.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn code_links_bold_names_and_markers_around_the_title_are_read_apart_from_it() {
        let text = "\
- [WebRL: Training LLM Web Agents](https://arxiv.org/abs/2411.02337) - online curriculum [[code](https://github.com/THUDM/WebRL)]
- **Search-R1**: Training LLMs to Reason with Search [paper](https://arxiv.org/abs/2503.09516) [开源]

| Title | Link | Notes |
|---|---|---|
| [ToolRL: Reward is All Tool Learning Needs](https://arxiv.org/abs/2504.13958) [[code](https://github.com/q/ToolRL)] [开源] | [arXiv](https://arxiv.org/abs/2504.13958) | rewards, [GitHub](https://github.com/q/x) |
";
        let parsed = parse(Path::new("list.md"), text);
        assert!(parsed.problems.is_empty());
        let p: Vec<_> = parsed.papers.into_iter().map(|(_, p)| p).collect();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].title, "WebRL: Training LLM Web Agents");
        assert_eq!(p[0].highlight, "online curriculum");
        assert_eq!(
            p[0].url.as_deref(),
            Some("https://arxiv.org/abs/2411.02337")
        );
        assert_eq!(p[0].code.as_deref(), Some("https://github.com/THUDM/WebRL"));
        assert_eq!(p[1].title, "Search-R1: Training LLMs to Reason with Search");
        assert!(p[1].open_source && p[1].code.is_none());
        assert_eq!(p[2].title, "ToolRL: Reward is All Tool Learning Needs");
        assert_eq!(p[2].id, "toolrl-reward-is-all-tool-learning-needs");
        assert_eq!(p[2].code.as_deref(), Some("https://github.com/q/ToolRL"));
        assert_eq!(
            p[2].url.as_deref(),
            Some("https://arxiv.org/abs/2504.13958")
        );
        assert_eq!(p[2].highlight, "rewards,");
        assert!(p[2].open_source);
    }

    #[test]
    fn list_items_are_read_in_the_forms_awesome_lists_write_them() {
        // A bad-input probe found each of these dropped without a word, or read wrongly.
        let text = "\u{feff}## Numbered\n\
            1. [Chain of Thought](https://arxiv.org/abs/2201.11903)\n\
            2) [Self-Consistency](https://arxiv.org/abs/2203.11171) - sampling\n\
            - **[Tree of Thoughts](https://arxiv.org/abs/2305.10601)** - *NeurIPS 2023*\n\
            + [Plus Paper](https://example.com/plus)\n\
            - Language Agent Tree Search [[paper](https://arxiv.org/abs/2310.04406)] [[code](https://github.com/x/y)]\n\
            - \"Quoted Title On Memory.\" *arXiv 2023*. [[pdf](https://arxiv.org/abs/2304.00001)]\n\
            - [Parens](https://en.wikipedia.org/wiki/Foo_(bar)) - wiki\n\
            - [[2401.00002] Bracketed Title](https://arxiv.org/abs/2401.00002)\n\
            - [x] [Checklist Paper](https://example.com/check) - done ![badge](https://img.shields.io/b) see [notes](https://n.io) at https://x.io\n\
            - **Latent Diffusion**: [High-Resolution Image Synthesis with Latent Diffusion Models](https://arxiv.org/abs/2112.10752) (CVPR 2022)\n\
            - Some Method Title [Project page here](https://example.com/p)\n\
            - A prose bullet without a link\n\
            ```\n\
            - [Code Block Paper](https://example.com/fake)\n\
            ```\n\
            <!-- - [Commented Paper](https://example.com/c) -->\n\
            <!--\n\
            - [Long Comment Paper](https://example.com/c)\n\
            -->\n\
            ---\n";
        let got = papers(text);
        let want = [
            ("Chain of Thought", "", "https://arxiv.org/abs/2201.11903"),
            (
                "Self-Consistency",
                "sampling",
                "https://arxiv.org/abs/2203.11171",
            ),
            (
                "Tree of Thoughts",
                "NeurIPS 2023",
                "https://arxiv.org/abs/2305.10601",
            ),
            ("Plus Paper", "", "https://example.com/plus"),
            (
                "Language Agent Tree Search",
                "",
                "https://arxiv.org/abs/2310.04406",
            ),
            (
                "Quoted Title On Memory",
                "arXiv 2023 .",
                "https://arxiv.org/abs/2304.00001",
            ),
            ("Parens", "wiki", "https://en.wikipedia.org/wiki/Foo_(bar)"),
            (
                "[2401.00002] Bracketed Title",
                "",
                "https://arxiv.org/abs/2401.00002",
            ),
            (
                "Checklist Paper",
                "done see notes at",
                "https://example.com/check",
            ),
            (
                "High-Resolution Image Synthesis with Latent Diffusion Models",
                "(CVPR 2022)",
                "https://arxiv.org/abs/2112.10752",
            ),
            ("Some Method Title", "", "https://example.com/p"),
        ];
        let want: Vec<(String, String, String)> = want
            .iter()
            .map(|(t, h, l)| (t.to_string(), h.to_string(), l.to_string()))
            .collect();
        assert_eq!(got, want);
        // The byte-order mark does not hide the first heading.
        let parsed = parse(Path::new("list.md"), text);
        assert_eq!(parsed.papers[0].1.topic, "Numbered");
        assert_eq!(parsed.papers[1].0, 3, "lines are the file's");
        // A name before the title's link stays a way to find the paper.
        let named = &parsed.papers[9].1;
        assert_eq!(named.aliases, ["Latent Diffusion"], "{named:?}");
    }

    #[test]
    fn an_escaped_pipe_stays_inside_its_table_cell() {
        let text = "| Paper | Link | Description |\n|---|---|---|\n\
            | [Toolformer \\| Teaching Themselves](https://arxiv.org/abs/2302.04761) | [arXiv](https://arxiv.org/abs/2302.04761) | tools with a \\| pipe ![b](https://img.shields.io/x) |\n";
        assert_eq!(
            papers(text),
            vec![(
                "Toolformer | Teaching Themselves".to_string(),
                "tools with a | pipe".to_string(),
                "arXiv".to_string()
            )]
        );
    }

    #[test]
    fn section_names_lose_their_emoji_and_shortcodes() {
        for (heading, name) in [
            ("🎯 Agent Tuning", "Agent Tuning"),
            ("🛠️ Tools & Frameworks ✨", "Tools & Frameworks"),
            (":rocket: Frameworks", "Frameworks"),
            ("👩‍💻 Code Agents", "Code Agents"),
            // colons that are not a shortcode stay
            ("RL: Algorithms", "RL: Algorithms"),
            (
                "Agentic RL: Search & Research",
                "Agentic RL: Search & Research",
            ),
            // Chinese and other scripts are not decorations
            ("🔥 强化学习 RL", "强化学习 RL"),
            // a heading of decorations only is kept as written
            ("🎉", "🎉"),
        ] {
            assert_eq!(section_name(heading), name, "{heading:?}");
        }
    }
}
