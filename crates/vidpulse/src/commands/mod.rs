//! The commands of the binary (docs/configuration.md).

pub mod admin;
pub mod import;
pub mod migrate;
pub mod serve;
pub mod worker;

use std::io::Write;

use serde::Serialize;

/// Prints one JSON object on stdout: the result of a command.
pub fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}
