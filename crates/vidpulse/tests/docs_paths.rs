//! The documents name only paths that exist: ARCHITECTURE.md, README.md,
//! BENCHMARKS.md and every page of `docs/` (but the benchmarks log, a dated
//! record kept as written) are read, and the test fails listing each path
//! one of them names that is not in the repository.
//!
//! What counts as a named path:
//! - a relative link's target (`[text](docs/api.md#anchor)`), from the
//!   page's own folder, without its anchor;
//! - a word of inline code that starts at the repository's root
//!   (`crates/`, `docs/`, `e2e/`, `scripts/`, `.ci/`, `.cargo/`): a file or
//!   folder there (a trailing `/` asks for a folder);
//! - a word of inline code that names a file by a known extension (`.rs`,
//!   `.md`, `.sql`, `.toml`, `.js`, …) from somewhere else (`sql.rs`,
//!   `v1/videos/export.rs`, `worker/src/refresh.rs` in the glossary, whose
//!   paths start at `crates/`): the end of some file's path in the
//!   repository;
//! - in a list item that starts with a folder from the root
//!   (`` - `crates/api/src/`: `router.rs`, `v1/` (`top.rs`) ``), each file or
//!   folder named after it, in that folder, and in parentheses after a
//!   folder's name, in that one: `crates/api/src/router.rs`,
//!   `crates/api/src/v1/top.rs`;
//! - in a fenced code block, only words that start at the root (commands
//!   write files of their own: `-o hook.json`).
//!
//! Never a path: URLs (`://`), HTTP routes (`/v1/…`), flags (`--only`),
//! variables (`$B`), placeholders (`<id>`), `module::paths` (the part before
//! the first `:` is what is checked: `docs/configuration.md:12`), host names
//! (`m.tiktok.com/v/ID.html`). Braces expand: `migrations/{sqlite,postgres}/`
//! names two folders.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Where a word that names a path from the repository's root starts.
const ROOTS: [&str; 6] = ["crates/", "docs/", "e2e/", "scripts/", ".ci/", ".cargo/"];

/// The extensions that make a word a file's name.
const EXTENSIONS: [&str; 17] = [
    "rs", "md", "sql", "toml", "mjs", "js", "css", "html", "json", "jsonl", "py", "sh", "png",
    "svg", "pem", "lock", "snap",
];

/// Pages that are a dated record: they name the paths of their day.
const RECORDS: [&str; 1] = ["docs/benchmarks-log.md"];

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file and folder of the repository, relative to its root, folders
/// with a trailing `/` (build outputs and dependencies left out).
fn repository_paths(root: &Path) -> BTreeSet<String> {
    let mut paths = BTreeSet::new();
    let mut folders = vec![String::new()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(root.join(&folder)).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().unwrap().is_dir() {
                if [".git", "target", "node_modules"].contains(&name.as_str()) {
                    continue;
                }
                let path = format!("{folder}{name}/");
                paths.insert(path.clone());
                folders.push(path);
            } else {
                paths.insert(format!("{folder}{name}"));
            }
        }
    }
    paths
}

/// The pages checked: the three at the root and `docs/*.md` but the records.
fn pages(root: &Path) -> Vec<String> {
    let mut pages: Vec<String> = ["ARCHITECTURE.md", "README.md", "BENCHMARKS.md"]
        .map(String::from)
        .to_vec();
    let mut docs: Vec<String> = fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| format!("docs/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".md") && !RECORDS.contains(&p.as_str()))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// How a word names a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// From the repository's root.
    Rooted,
    /// The end of some file's path.
    Suffix,
}

/// `word` with its braces expanded: `a/{b,c}.rs` is `a/b.rs` and `a/c.rs`.
fn expand(word: &str) -> Vec<String> {
    let Some(open) = word.find('{') else {
        return vec![word.to_owned()];
    };
    let Some(close) = word[open..].find('}').map(|i| open + i) else {
        return vec![word.to_owned()];
    };
    let inside = &word[open + 1..close];
    if !inside.contains(',') {
        return vec![word.to_owned()];
    }
    inside
        .split(',')
        .flat_map(|alt| expand(&format!("{}{alt}{}", &word[..open], &word[close + 1..])))
        .collect()
}

/// The paths a word of code names, with how each is looked up.
fn named_paths(word: &str) -> Vec<(Kind, String)> {
    let word = word
        .trim_start_matches(['(', '[', '"', '\''])
        .trim_end_matches([')', ']', '"', '\'', ',', '.', ';']);
    let rooted = ROOTS.iter().any(|r| word.starts_with(r));
    if word.is_empty() || word.contains("://") || (word.starts_with(['/', '-', '.']) && !rooted) {
        return Vec::new();
    }
    let word = word.split(':').next().unwrap_or_default();
    if word.contains(['$', '<', '>', '*', '=', '?', '@', '|', '\\', '~']) {
        return Vec::new();
    }
    let mut paths = Vec::new();
    for path in expand(word) {
        if path.contains(['{', '}']) {
            continue;
        }
        if ROOTS.iter().any(|r| path.starts_with(r)) {
            paths.push((Kind::Rooted, path));
            continue;
        }
        let host = path.contains('/') && path.split('/').next().is_some_and(|s| s.contains('.'));
        if !host && names_a_file(&path) {
            paths.push((Kind::Suffix, path));
        }
    }
    paths
}

/// Whether `path`'s last part is a file's name: a known extension after a stem.
fn names_a_file(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .and_then(|name| name.rsplit_once('.'))
        .is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext))
}

/// What a list item is made of, as far as its paths go.
#[derive(Debug, PartialEq, Eq)]
enum Token {
    /// Inline code.
    Code(String),
    /// `(`.
    Open,
    /// `)`.
    Close,
    /// Anything else but spaces.
    Text,
}

fn tokens(item: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = item.chars();
    while let Some(c) = chars.next() {
        match c {
            '`' => tokens.push(Token::Code(
                chars.by_ref().take_while(|&c| c != '`').collect(),
            )),
            '(' => tokens.push(Token::Open),
            ')' => tokens.push(Token::Close),
            c if c.is_whitespace() => {}
            _ => tokens.push(Token::Text),
        }
    }
    tokens
}

/// The paths the list items of `outside` (the page without its fenced
/// blocks) name under a folder: in an item that starts with a folder from
/// the root, each file or folder named after it is in that folder, and a
/// name in parentheses right after a folder's name is in that folder.
fn listed_paths(outside: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for line in outside.lines() {
        let Some(item) = line.strip_prefix("- ") else {
            continue;
        };
        let mut tokens = tokens(item).into_iter();
        let Some(Token::Code(base)) = tokens.next() else {
            continue;
        };
        if !base.ends_with('/') || !ROOTS.iter().any(|r| base.starts_with(r)) {
            continue;
        }
        let mut folders = vec![base];
        let mut last_folder: Option<String> = None;
        for token in tokens {
            let top = folders.last().cloned().unwrap_or_default();
            match token {
                Token::Open => folders.push(last_folder.take().unwrap_or(top)),
                Token::Close => {
                    if folders.len() > 1 {
                        folders.pop();
                    }
                    last_folder = None;
                }
                Token::Text => last_folder = None,
                Token::Code(word) => {
                    last_folder = None;
                    let rooted = ROOTS.iter().any(|r| word.starts_with(r));
                    if rooted || word.contains(char::is_whitespace) {
                        continue;
                    }
                    if word.ends_with('/') || names_a_file(&word) {
                        let path = format!("{top}{word}");
                        if word.ends_with('/') {
                            last_folder = Some(path.clone());
                        }
                        paths.push(path);
                    }
                }
            }
        }
    }
    paths
}

/// Whether `path` is in the repository, looked up as `kind` says.
fn exists(paths: &BTreeSet<String>, kind: Kind, path: &str) -> bool {
    match kind {
        Kind::Rooted if path.ends_with('/') => paths.contains(path),
        Kind::Rooted => paths.contains(path) || paths.contains(&format!("{path}/")),
        Kind::Suffix => {
            let end = format!("/{path}");
            paths.contains(path) || paths.iter().any(|p| p.ends_with(&end))
        }
    }
}

/// `path` relative to the page `page` sits in, from the root, with `.` and
/// `..` resolved.
fn from_page(page: &str, path: &str) -> String {
    let mut parts: Vec<&str> = page.split('/').collect();
    parts.pop();
    for part in path.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    let mut joined = parts.join("/");
    if path.ends_with('/') {
        joined.push('/');
    }
    joined
}

/// The page's text split into what is prose, the words of its inline code,
/// and the words of its fenced code blocks.
struct Parts {
    outside: String,
    prose: String,
    code: Vec<String>,
    fenced: Vec<String>,
}

fn parts(text: &str) -> Parts {
    let mut outside = String::new();
    let mut fenced = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if in_fence {
            fenced.extend(line.split_whitespace().map(String::from));
        } else {
            outside.push_str(line);
        }
        outside.push('\n');
    }
    // Inline code: a run of backticks up to the next run of the same length
    // (a span may cross a line's end, as Markdown allows).
    let mut prose = String::new();
    let mut code = Vec::new();
    let mut rest = outside.as_str();
    while let Some(start) = rest.find('`') {
        let ticks = rest[start..].len() - rest[start..].trim_start_matches('`').len();
        let fence = &rest[start..start + ticks];
        let after = &rest[start + ticks..];
        let Some(end) = find_run(after, ticks) else {
            break;
        };
        prose.push_str(&rest[..start]);
        code.extend(after[..end].split_whitespace().map(String::from));
        rest = &after[end + fence.len()..];
    }
    prose.push_str(rest);
    Parts {
        outside,
        prose,
        code,
        fenced,
    }
}

/// Where in `text` the next run of exactly `ticks` backticks starts.
fn find_run(text: &str, ticks: usize) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find('`').map(|i| from + i) {
        let run = text[i..].len() - text[i..].trim_start_matches('`').len();
        if run == ticks {
            return Some(i);
        }
        from = i + run;
    }
    None
}

/// The targets of the relative links in `prose`, without their anchors.
fn link_targets(prose: &str) -> Vec<String> {
    prose
        .split("](")
        .skip(1)
        .filter_map(|after| after.split([')', ' ']).next())
        .filter(|t| !t.is_empty() && !t.contains("://") && !t.starts_with(['#', '<']))
        .filter(|t| !t.starts_with("mailto:"))
        .map(|t| t.split('#').next().unwrap_or_default().to_owned())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Each path `page` names that the repository does not hold, as
/// `page: path`.
fn missing_in(root: &Path, paths: &BTreeSet<String>, page: &str) -> Vec<String> {
    let text = fs::read_to_string(root.join(page)).unwrap();
    let parts = parts(&text);
    let mut missing = Vec::new();
    for target in link_targets(&parts.prose) {
        let path = from_page(page, &target);
        if !exists(paths, Kind::Rooted, &path) {
            missing.push(format!("{page}: link ({target})"));
        }
    }
    let named = parts.code.iter().flat_map(|w| named_paths(w)).chain(
        parts
            .fenced
            .iter()
            .flat_map(|w| named_paths(w))
            .filter(|(kind, _)| *kind == Kind::Rooted),
    );
    for (kind, path) in named {
        if !exists(paths, kind, &path) {
            missing.push(format!("{page}: `{path}`"));
        }
    }
    for path in listed_paths(&parts.outside) {
        if !exists(paths, Kind::Rooted, &path) {
            missing.push(format!("{page}: `{path}` (listed)"));
        }
    }
    missing
}

#[test]
fn the_documents_name_only_paths_that_exist() {
    let root = root();
    let paths = repository_paths(&root);
    let missing: Vec<String> = pages(&root)
        .iter()
        .flat_map(|page| missing_in(&root, &paths, page))
        .collect();
    assert!(
        missing.is_empty(),
        "paths named in the documents that do not exist:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_rule_tells_paths_from_other_code() {
    assert_eq!(
        named_paths("crates/store/src/sql.rs"),
        vec![(Kind::Rooted, "crates/store/src/sql.rs".to_owned())]
    );
    assert_eq!(
        named_paths("crates/store/migrations/{sqlite,postgres}/"),
        vec![
            (Kind::Rooted, "crates/store/migrations/sqlite/".to_owned()),
            (Kind::Rooted, "crates/store/migrations/postgres/".to_owned()),
        ]
    );
    assert_eq!(
        named_paths("v1/videos/export.rs"),
        vec![(Kind::Suffix, "v1/videos/export.rs".to_owned())]
    );
    assert_eq!(
        named_paths("docs/configuration.md:12"),
        vec![(Kind::Rooted, "docs/configuration.md".to_owned())]
    );
    for not_a_path in [
        "/v1/videos/stats",
        "https://example.com/a.js",
        "--only",
        "$CARGO_TARGET_DIR/release/vidpulse",
        "store::videos::gains",
        "data/outbox/",
        "m.tiktok.com/v/ID.html",
        "sqlite|postgres",
        "<id>.json",
        "0.9",
    ] {
        assert_eq!(named_paths(not_a_path), Vec::new(), "{not_a_path}");
    }
    let paths: BTreeSet<String> = ["crates/", "crates/store/", "crates/store/src/sql.rs"]
        .map(String::from)
        .into();
    assert!(exists(&paths, Kind::Suffix, "sql.rs"));
    assert!(exists(&paths, Kind::Suffix, "store/src/sql.rs"));
    assert!(!exists(&paths, Kind::Suffix, "ql.rs"));
    assert!(!exists(&paths, Kind::Rooted, "crates/store/src/sql.rs/"));
    assert_eq!(
        from_page("docs/README.md", "../ARCHITECTURE.md"),
        "ARCHITECTURE.md"
    );
    assert_eq!(
        listed_paths(
            "- `crates/api/src/`: `router.rs` (routes), `v1/` (`top.rs`, `videos/` (`read.rs`)), \
             `state.rs`; elsewhere `crates/web/`\n- `.ci/run`: `x.rs`"
        ),
        [
            "crates/api/src/router.rs",
            "crates/api/src/v1/",
            "crates/api/src/v1/top.rs",
            "crates/api/src/v1/videos/",
            "crates/api/src/v1/videos/read.rs",
            "crates/api/src/state.rs",
        ]
    );
    assert_eq!(
        link_targets("see [the API](docs/api.md#envelopes) and [a site](https://x.y/)"),
        vec!["docs/api.md".to_owned()]
    );
}
