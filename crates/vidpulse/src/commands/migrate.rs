//! `vidpulse migrate`: applies pending migrations (and runs the tasks they
//! queued) and prints `{"applied": N}`.

use serde::Serialize;
use vidpulse_store::StoreConfig;

/// What `migrate` prints.
#[derive(Debug, Serialize)]
pub struct MigrateOutput {
    /// Migrations applied by this run.
    pub applied: usize,
}

/// Runs the command.
pub async fn run(database_url: &str) -> anyhow::Result<MigrateOutput> {
    let store = vidpulse_store::connect(&StoreConfig::new(database_url)).await?;
    let applied = store.migrate().await?;
    store.run_queued_tasks().await?;
    store.close().await;
    Ok(MigrateOutput { applied })
}
