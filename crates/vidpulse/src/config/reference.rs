//! `docs/configuration.md` checked against the command-line definitions, so
//! the page cannot drift from them: every flag of every command is
//! documented under a heading naming that command, with its variable and its
//! default, and the page names no flag, variable or command that does not
//! exist.
//!
//! The page's shape, which this check reads: a heading names the commands
//! its table applies to in backticks (`vidpulse serve`; plain `vidpulse` for
//! the settings every command takes). A table with a `flag` column has one
//! row per flag; its `variable` column holds the variable in backticks (or
//! nothing), its `default` column starts with the default in backticks,
//! `none` or `required`. A table with a `variable` column and no `flag`
//! column lists the variables read outside the command line.

use std::collections::BTreeMap;

use clap::CommandFactory;

use super::Cli;
use super::variables::OTHER_VARIABLES;

/// The page, compiled in so the test runs wherever the crate builds.
const PAGE: &str = include_str!("../../../../docs/configuration.md");

/// What a flag defaults to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Default {
    /// This value.
    Value(String),
    /// Nothing: the setting is off or optional.
    None,
    /// The flag must be given.
    Required,
}

/// One flag as clap defines it or as the page states it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Flag {
    variable: Option<String>,
    default: Default,
}

/// Flags by command path (`vidpulse admin set-plan`) and long name (`--plan`).
type Flags = BTreeMap<(String, String), Flag>;

/// Every flag of every command, from clap.
fn defined() -> (Flags, Vec<String>) {
    fn walk(cmd: &clap::Command, path: &str, flags: &mut Flags, commands: &mut Vec<String>) {
        commands.push(path.to_owned());
        for arg in cmd.get_arguments() {
            let long = arg
                .get_long()
                .unwrap_or_else(|| panic!("`{path}` has an argument without a long name"));
            let default = match arg.get_default_values() {
                [] if arg.is_required_set() => Default::Required,
                [] => Default::None,
                values => Default::Value(
                    values
                        .iter()
                        .map(|v| v.to_string_lossy())
                        .collect::<Vec<_>>()
                        .join(","),
                ),
            };
            let variable = arg.get_env().map(|e| e.to_string_lossy().into_owned());
            flags.insert(
                (path.to_owned(), format!("--{long}")),
                Flag { variable, default },
            );
        }
        for sub in cmd.get_subcommands() {
            walk(sub, &format!("{path} {}", sub.get_name()), flags, commands);
        }
    }
    let (mut flags, mut commands) = (Flags::new(), Vec::new());
    walk(&Cli::command(), "vidpulse", &mut flags, &mut commands);
    (flags, commands)
}

/// The text between the first pair of backticks of `cell`, if any.
fn code(cell: &str) -> Option<&str> {
    let (_, rest) = cell.split_once('`')?;
    rest.split_once('`').map(|(inside, _)| inside)
}

/// Every text in backticks in `line`.
fn codes(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// A table row's cells, trimmed, without the outer pipes. Pipes inside
/// backticks (`free\|pro`) are escaped in the page, so they do not split.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out.iter().map(|c| c.trim().to_owned()).collect()
}

fn parse_default(cell: &str) -> Result<Default, String> {
    if cell.starts_with('`') {
        code(cell)
            .map(|v| Default::Value(v.to_owned()))
            .ok_or_else(|| format!("unclosed backtick in default `{cell}`"))
    } else if cell.starts_with("none") {
        Ok(Default::None)
    } else if cell.starts_with("required") {
        Ok(Default::Required)
    } else {
        Err(format!(
            "a default starts with a `value`, `none` or `required`: `{cell}`"
        ))
    }
}

/// What the page states: flags by command and long name, and the variables
/// it lists as read outside the command line; or every mistake in its shape.
fn stated(page: &str) -> Result<(Flags, Vec<String>), Vec<String>> {
    let (mut flags, mut others, mut errors) = (Flags::new(), Vec::new(), Vec::new());
    let mut scope: Vec<String> = Vec::new();
    let mut columns: Option<BTreeMap<String, usize>> = None;
    for (n, line) in page.lines().enumerate() {
        let at = format!("docs/configuration.md:{}", n + 1);
        if line.starts_with('#') {
            scope = codes(line)
                .into_iter()
                .filter(|c| *c == "vidpulse" || c.starts_with("vidpulse "))
                .map(str::to_owned)
                .collect();
            continue;
        }
        if !line.starts_with('|') {
            columns = None;
            continue;
        }
        let row = cells(line);
        let Some(cols) = &columns else {
            // A table's header row.
            columns = Some(
                row.iter()
                    .enumerate()
                    .map(|(i, c)| (c.to_lowercase(), i))
                    .collect(),
            );
            continue;
        };
        if row
            .iter()
            .all(|c| c.chars().all(|c| matches!(c, '-' | ':')))
        {
            continue;
        }
        let cell = |name: &str| cols.get(name).and_then(|i| row.get(*i)).map(String::as_str);
        let variable = cell("variable").and_then(code).map(str::to_owned);
        match (cell("flag"), cell("default")) {
            (Some(flag_cell), Some(default_cell)) => {
                let Some(flag) = code(flag_cell).filter(|f| f.starts_with("--")) else {
                    errors.push(format!("{at}: the flag cell has no `--flag`"));
                    continue;
                };
                let default = match parse_default(default_cell) {
                    Ok(d) => d,
                    Err(e) => {
                        errors.push(format!("{at}: {e}"));
                        continue;
                    }
                };
                if scope.is_empty() {
                    errors.push(format!(
                        "{at}: {flag} is under a heading that names no `vidpulse …` command"
                    ));
                }
                for command in &scope {
                    let stated = Flag {
                        variable: variable.clone(),
                        default: default.clone(),
                    };
                    if flags
                        .insert((command.clone(), flag.to_owned()), stated)
                        .is_some()
                    {
                        errors.push(format!("{at}: {flag} of `{command}` is listed twice"));
                    }
                }
            }
            (None, _) if cols.contains_key("variable") => match variable {
                Some(v) => others.push(v),
                None => errors.push(format!("{at}: the variable cell has no `VARIABLE`")),
            },
            _ => {}
        }
    }
    if errors.is_empty() {
        Ok((flags, others))
    } else {
        Err(errors)
    }
}

/// Every difference between the definitions and the page.
fn differences(page: &str) -> Vec<String> {
    let (defined, commands) = defined();
    let (stated, others) = match stated(page) {
        Ok(s) => s,
        Err(errors) => return errors,
    };
    let mut out = Vec::new();
    for ((command, flag), want) in &defined {
        match stated.get(&(command.clone(), flag.clone())) {
            None => out.push(format!("`{command}` {flag} is not documented")),
            Some(got) if got.variable != want.variable => out.push(format!(
                "`{command}` {flag}: the page says variable {:?}, the code {:?}",
                got.variable, want.variable
            )),
            Some(got) if got.default != want.default => out.push(format!(
                "`{command}` {flag}: the page says default {:?}, the code {:?}",
                got.default, want.default
            )),
            Some(_) => {}
        }
    }
    for (command, flag) in stated.keys() {
        if !commands.contains(command) {
            out.push(format!(
                "the page names a command `{command}` that does not exist"
            ));
        } else if !defined.contains_key(&(command.clone(), flag.clone())) {
            out.push(format!(
                "the page names {flag} of `{command}`, which has no such flag"
            ));
        }
    }
    for variable in &others {
        if !OTHER_VARIABLES.contains(&variable.as_str()) {
            out.push(format!(
                "the page lists {variable} as read outside the command line; it is not"
            ));
        }
    }
    for variable in OTHER_VARIABLES {
        if !others.iter().any(|v| v == variable) {
            out.push(format!("{variable} is not documented"));
        }
    }
    out
}

#[test]
fn the_configuration_page_matches_the_command_line() {
    let differences = differences(PAGE);
    assert!(
        differences.is_empty(),
        "docs/configuration.md and the clap definitions disagree:\n  {}",
        differences.join("\n  ")
    );
}

#[test]
fn the_check_catches_a_missing_a_wrong_and_an_invented_setting() {
    let missing = PAGE.replacen("`--listen`", "`--listen-nowhere`", 1);
    let found = differences(&missing);
    assert!(
        found
            .iter()
            .any(|d| d.contains("--listen is not documented")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|d| d.contains("--listen-nowhere")),
        "{found:?}"
    );

    let wrong = PAGE.replacen("`127.0.0.1:8080`", "`0.0.0.0:8080`", 1);
    assert!(
        differences(&wrong).iter().any(|d| d.contains("default")),
        "a changed default goes unnoticed"
    );

    let renamed = PAGE.replacen("`VIDPULSE_LISTEN`", "`VIDPULSE_LISTEN_ADDR`", 1);
    assert!(
        differences(&renamed).iter().any(|d| d.contains("variable")),
        "a renamed variable goes unnoticed"
    );
}

#[test]
fn cells_keep_escaped_pipes() {
    assert_eq!(
        cells("| `--plan` | `free` | `free\\|pro` |"),
        ["`--plan`", "`free`", "`free|pro`"]
    );
}
