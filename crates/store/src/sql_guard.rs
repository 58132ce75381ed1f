//! The test that keeps values out of SQL text (the rule is in `sql.rs`):
//! it reads every source file of the store and fails on
//!
//! - a `format!` that interpolates anything but a fragment on
//!   [`FRAGMENTS`] (or of a shape [`is_fragment`] knows): text the code
//!   itself holds, or a number it generated;
//! - an `AssertSqlSafe` (the only way runtime text becomes SQL, see
//!   `Builder::push`) around anything but a `format!` or a text on
//!   [`ASSEMBLED`].
//!
//! A `format!` whose text is a message or a bound value (the argument of
//! `StoreError::…(`, `corrupt(`, `.bind(` or `.push_bind(`) is not SQL text
//! and is left alone. `testing.rs` (throwaway databases, with statements
//! the tests write) is not read.
//!
//! A failure names the file, the line and the value. Bind the value
//! (`.bind`, `Builder::push_bind`); if it truly is a fragment of the code,
//! add it to the list with where it comes from, for review.

use std::path::{Path, PathBuf};

/// What SQL text may interpolate, by name, as written in the `format!`
/// (whitespace removed): each comes from a fixed list, a constant, or a
/// number or date the code made. Constants (`UPPER_CASE`), `Dialect`
/// spellings of literals and parameter numbers are recognized by shape
/// ([`is_fragment`]).
const FRAGMENTS: &[&str] = &[
    // Metric, part and column names from the code's fixed lists
    // (`rollup::METRICS`, `PARTS`, `sum_columns`, the analytics metrics).
    "m",
    "p",
    "part",
    "c",
    "columns",
    "columns.join(\", \")",
    "last",
    "last.join(\", \")",
    "prev.join(\", \")",
    "latest.join(\" || ',' || \")",
    "sums.join(\", \")",
    "summed.join(\", \")",
    "set.join(\", \")",
    // Table, key and column names: `&'static str` parameters.
    "table",
    "key",
    "column",
    "alias",
    "ty",
    "sort_by",
    "condition",
    "record.columns",
    "record.join",
    // Row locks and casts (`Dialect` constants, `&'static str`).
    "lock",
    // Parameter texts (`$n`, `NULL`, a `Dialect::typed` of one).
    "param",
    "org_param",
    "ends_at",
    "now_at",
    // Expressions and clauses the statement's own function wrote from
    // the above.
    "start",
    "end",
    "first",
    "step",
    "opened",
    "expr",
    "expr(m)",
    "visible",
    "metrics",
    "lags",
    "select",
    "group",
    "group_clause",
    "campaign_filter",
    "author_filter",
    "day_column",
    "order",
    "dir",
    "source",
    "all_shares",
    "statement",
    "relink_all_sql()",
    "videos_cte::<D>()",
    "first_d_column(baseline)",
    "first_day_condition(baseline)",
    "latest_sql::<D>(D::SCOPE_TABLE,&org_param)",
    "list_order(query,\"page_gain\")",
    "list_order(query,\"page.page_gain\")",
    // Numbers the code holds: a listing page's bounds (`i64`, written as
    // numbers so that PostgreSQL keeps one plan), the scope's parameter
    // count, a count and a duration in a stored message.
    "query.limit",
    "query.offset",
    "D::SCOPE_PARAMS+1",
    "n",
    "timeout.num_seconds()",
    // A UUID, in a job's request id (bound, and no UUID spells SQL).
    "result.tracked_account_id",
    // Dates the code made: a stored note's day, and the names and bounds
    // of PostgreSQL's monthly partitions.
    "now.date_naive()",
    "month.year()",
    "month.month()",
    "partition",
    "utc_midnight(month).to_rfc3339()",
    "utc_midnight(next_month(month)).to_rfc3339()",
];

/// What may be marked `AssertSqlSafe` besides a `format!` (whose
/// interpolations are checked): texts assembled by a checked `format!` or
/// by the functions that write one statement.
const ASSEMBLED: &[&str] = &[
    "sql",
    "sql.as_str()",
    "statement.to_owned()",
    "self.sql",
    "ddl",
    "forget",
    "keep",
    "held_sql.as_str()",
    "upsert.as_str()",
    "delete.as_str()",
    "job_sql()",
    "close_conflict::<D>()",
    "relink_all_sql()",
    "relink_sql(D::SCOPE_TABLE)",
    "rebuild_sql(table,key,&all)",
    "day_increments_sql::<D>(sort_by)",
    "latest_sql::<D>(every_video,&D::typed(\"NULL\",\"UUID\"))",
];

/// Calls whose `format!` argument is a message or a bound value, not SQL.
const NOT_SQL: &[&str] = &[
    "Config",
    "Corrupt",
    "Unavailable",
    "corrupt",
    "bind",
    "push_bind",
];

/// Files not read: test support, and this file.
const NOT_READ: &[&str] = &["testing.rs", "sql_guard.rs"];

/// Whether `value` (as written, whitespace removed) is a fragment by its
/// shape: a constant (`UPPER_CASE`, or a `Dialect`'s `D::UPPER_CASE`), a
/// `Dialect` spelling of literals (`D::day_of("…")`, `D::typed("…", "…")`),
/// a parameter number (`p(3)`, `t(4, "TEXT")`), or on [`FRAGMENTS`].
fn is_fragment(value: &str) -> bool {
    let constant = |s: &str| {
        !s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_uppercase())
            && s.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    };
    let literals = |args: &str| {
        args.split(',').all(|a| {
            a.len() >= 2
                && a.starts_with('"')
                && a.ends_with('"')
                && !a[1..a.len() - 1].contains('"')
        })
    };
    let call_of = |name: &str| {
        value
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('('))
            .and_then(|rest| rest.strip_suffix(')'))
    };
    let number = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    constant(value)
        || value.strip_prefix("D::").is_some_and(constant)
        || ["D::day_of", "D::typed", "D::row_lock_of"]
            .into_iter()
            .any(|f| call_of(f).is_some_and(literals))
        || call_of("p").is_some_and(number)
        || call_of("t").is_some_and(|args| {
            args.split_once(',')
                .is_some_and(|(n, ty)| number(n) && literals(ty))
        })
        || FRAGMENTS.contains(&value)
}

/// One token of Rust source, as far as the check needs: a string literal's
/// text is kept as written, between its quotes.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Literal(String),
    Punct(char),
}

impl Token {
    /// The token as the lists spell it.
    fn text(&self) -> String {
        match self {
            Token::Ident(s) | Token::Literal(s) => s.clone(),
            Token::Punct(c) => c.to_string(),
        }
    }
}

/// The tokens of `src` with their line numbers, comments left out.
fn tokens(src: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if at(i) == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if let Some((raw, hashes, quote)) = string_start(&chars, i) {
            // A string literal: "…", r"…", r#"…"#, b"…", br"…".
            let begin = i;
            i = quote + 1;
            loop {
                let ch = at(i);
                if ch == '\n' {
                    line += 1;
                }
                if !raw && ch == '\\' {
                    if at(i + 1) == '\n' {
                        line += 1;
                    }
                    i += 2;
                } else if ch == '"' && (0..hashes).all(|k| at(i + 1 + k) == '#') {
                    i += 1 + hashes;
                    break;
                } else {
                    i += 1;
                }
            }
            let text: String = chars[begin..i].iter().collect();
            out.push((Token::Literal(text), start_line));
        } else if c == '\'' {
            // A character literal ('x', '\n', '"') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while at(i) != '\'' {
                    i += 1;
                }
                i += 1;
                out.push((Token::Literal("'_'".into()), start_line));
            } else if at(i + 2) == '\'' {
                i += 3;
                out.push((Token::Literal("'_'".into()), start_line));
            } else {
                out.push((Token::Punct('\''), start_line));
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let begin = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            out.push((Token::Ident(chars[begin..i].iter().collect()), start_line));
        } else {
            out.push((Token::Punct(c), start_line));
            i += 1;
        }
    }
    out
}

/// Whether a string literal starts at token start `chars[i]`: whether it
/// is raw, its number of `#`s, and where its opening quote is.
fn string_start(chars: &[char], i: usize) -> Option<(bool, usize, usize)> {
    let at = |j: usize| chars.get(j).copied().unwrap_or('\0');
    let mut j = i;
    if at(j) == 'b' {
        j += 1;
    }
    let raw = at(j) == 'r';
    if raw {
        j += 1;
    }
    let mut hashes = 0;
    while raw && at(j) == '#' {
        hashes += 1;
        j += 1;
    }
    (at(j) == '"').then_some((raw, hashes, j))
}

/// The arguments of the call whose `(` is `tokens[open]`, split at its
/// top-level commas, and the index of its `)`.
fn arguments(tokens: &[(Token, usize)], open: usize) -> (Vec<Vec<Token>>, usize) {
    let mut args = vec![Vec::new()];
    let mut depth = 0;
    for (i, (t, _)) in tokens.iter().enumerate().skip(open) {
        match t {
            Token::Punct('(' | '[' | '{') => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            Token::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    args.retain(|a| !a.is_empty());
                    return (args, i);
                }
            }
            Token::Punct(',') if depth == 1 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = args.last_mut() {
            last.push(t.clone());
        }
    }
    panic!("unbalanced call at token {open}");
}

/// `tokens` as one text without whitespace (nor a trailing comma).
fn spelled(tokens: &[Token]) -> String {
    let text: String = tokens.iter().map(Token::text).collect();
    text.replace(",)", ")")
}

/// What a `format!` interpolates: its arguments (a named one's value) and
/// the names its format string captures.
fn interpolated(args: &[Vec<Token>]) -> Vec<String> {
    let Some([Token::Literal(text)]) = args.first().map(Vec::as_slice) else {
        return vec![format_string_missing()];
    };
    let mut named = Vec::new();
    let mut values = Vec::new();
    for arg in &args[1..] {
        match arg.as_slice() {
            [Token::Ident(name), Token::Punct('='), rest @ ..]
                if !matches!(rest.first(), Some(Token::Punct('='))) =>
            {
                named.push(name.clone());
                values.push(spelled(rest));
            }
            value => values.push(spelled(value)),
        }
    }
    let text = text.replace("{{", "").replace("}}", "");
    for hole in text.split('{').skip(1) {
        let spec = hole.split('}').next().unwrap_or("");
        let name = spec.split(':').next().unwrap_or("");
        let captured = name.starts_with(|c: char| c.is_alphabetic() || c == '_');
        if captured && !named.iter().any(|n| n == name) {
            values.push(name.to_owned());
        }
    }
    values
}

/// What [`interpolated`] answers for a `format!` it cannot read: never a
/// fragment, so the check fails on it.
fn format_string_missing() -> String {
    "<a format! without a literal format string>".to_owned()
}

/// The check of one file's source: one line per violation.
fn violations(file: &str, src: &str) -> Vec<String> {
    let tokens = tokens(src);
    let ident =
        |i: usize, name: &str| matches!(tokens.get(i), Some((Token::Ident(s), _)) if s == name);
    let punct = |i: usize, c: char| matches!(tokens.get(i), Some((Token::Punct(p), _)) if *p == c);
    let mut found = Vec::new();
    for (i, (_, line)) in tokens.iter().enumerate() {
        if ident(i, "format") && punct(i + 1, '!') && punct(i + 2, '(') {
            let not_sql =
                i >= 2 && punct(i - 1, '(') && NOT_SQL.iter().any(|name| ident(i - 2, name));
            if not_sql {
                continue;
            }
            let (args, _) = arguments(&tokens, i + 2);
            for value in interpolated(&args) {
                if !is_fragment(&value) {
                    found.push(format!("{file}:{line}: format! interpolates `{value}`"));
                }
            }
        }
        if ident(i, "AssertSqlSafe") && punct(i + 1, '(') {
            let (args, _) = arguments(&tokens, i + 1);
            let arg: Vec<Token> = args.into_iter().flatten().collect();
            let formatted =
                matches!(arg.as_slice(), [Token::Ident(f), Token::Punct('!'), ..] if f == "format");
            if !formatted && !ASSEMBLED.contains(&spelled(&arg).as_str()) {
                found.push(format!(
                    "{file}:{line}: AssertSqlSafe of `{}`",
                    spelled(&arg)
                ));
            }
        }
    }
    found
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the store's sources are readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

#[test]
fn sql_text_interpolates_only_fragments() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut read = 0;
    for path in sources(&root) {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        if NOT_READ.contains(&name.as_str()) {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("a source file is text");
        found.extend(violations(&name, &src));
        read += 1;
    }
    assert!(read > 40, "the store's sources were read ({read} files)");
    assert!(
        found.is_empty(),
        "SQL text built from something not known to be a fragment of the code \
         (bind it, or add it to sql_guard.rs's lists with where it comes from):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_catches_a_value() {
    let src = r#"
        fn find(name: &str) {
            D::query(AssertSqlSafe(format!("SELECT id FROM t WHERE name = '{name}'")));
            D::query(AssertSqlSafe(format!("SELECT {} FROM t", user.column)));
            D::query(AssertSqlSafe(text));
            b.push(AssertSqlSafe(format!("{TABLE} {} {m} {}", D::day_of("x"), t(4, "TEXT"))));
            b.push_bind(format!("%{name}%"));
            Err(StoreError::Corrupt(format!("bad {name}")))
        }
    "#;
    assert_eq!(
        violations("f.rs", src),
        [
            "f.rs:3: format! interpolates `name`",
            "f.rs:4: format! interpolates `user.column`",
            "f.rs:5: AssertSqlSafe of `text`",
        ]
    );
}
