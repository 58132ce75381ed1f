//! The settings of the background work, shared by `serve` and `worker`:
//! where platform data comes from, the refresh schedule, creator jobs,
//! claims and retention; checked and typed into [`RuntimeSettings`].

use std::time::Duration;

use clap::{Args, ValueEnum};
use vidpulse_domain::schedule::RefreshSchedule;
use vidpulse_platforms::SimulatedConfig;
use vidpulse_worker::CreatorConfig;

use super::live::LiveArgs;

/// Settings of the background work, shared by `serve` and `worker`.
#[derive(Debug, Args)]
pub struct RuntimeArgs {
    /// Where platform data comes from.
    #[arg(long, env = "VIDPULSE_UPSTREAM", value_enum, default_value_t = Upstream::Simulated)]
    pub upstream: Upstream,
    /// Refresh schedule: INTERVAL@AGE tiers; the last age is the tracking window.
    #[arg(
        long,
        env = "VIDPULSE_REFRESH_SCHEDULE",
        default_value = "15m@24h,1h@7d,6h@30d"
    )]
    pub refresh_schedule: String,
    /// How often a video is read past the schedule's tiers while its
    /// campaign keeps it tracked (until 7 days after the campaign ends).
    #[arg(
        long,
        env = "VIDPULSE_REFRESH_EXTENDED_INTERVAL",
        default_value = "24h"
    )]
    pub refresh_extended_interval: String,
    /// Scheduled reads per organization per UTC day (0: no cap): past it,
    /// the worker skips the organization's videos until the next day.
    #[arg(long, env = "VIDPULSE_MAX_READS_PER_ORG_PER_DAY", default_value_t = 0)]
    pub max_reads_per_org_per_day: u64,
    /// Simulated upstream: share of calls that fail transiently (0 to 1).
    #[arg(long, env = "VIDPULSE_SIM_FAIL_RATE", default_value_t = 0.0)]
    pub sim_fail_rate: f64,
    /// Simulated upstream: share of videos reported removed or private (0 to 1).
    #[arg(long, env = "VIDPULSE_SIM_GONE_RATE", default_value_t = 0.0)]
    pub sim_gone_rate: f64,
    /// Simulated upstream: added latency per call, in milliseconds.
    #[arg(long, env = "VIDPULSE_SIM_LATENCY_MS", default_value_t = 0)]
    pub sim_latency_ms: u64,
    /// Seconds a creator-track job may run before the sweep closes it (`JOB_TIMEOUT`).
    #[arg(long, env = "VIDPULSE_JOB_TIMEOUT_SECS", default_value_t = 3600)]
    pub job_timeout_secs: u64,
    /// Seconds between two runs of the job timeout sweep.
    #[arg(long, env = "VIDPULSE_JOB_SWEEP_INTERVAL_SECS", default_value_t = 3600)]
    pub job_sweep_interval_secs: u64,
    /// Days of raw observations kept (0: all); daily closes, and so the
    /// analytics, are kept whatever this says.
    #[arg(long, env = "VIDPULSE_OBSERVATION_RETENTION_DAYS", default_value_t = 0)]
    pub observation_retention_days: u64,
    /// Seconds a worker's claim on a video or a creator job holds; a killed
    /// worker's claims are taken over once it runs out.
    #[arg(long, env = "VIDPULSE_WORKER_LEASE_SECS", default_value_t = 300)]
    pub worker_lease_secs: u64,
    /// Let webhooks reach loopback, private and link-local addresses (a
    /// receiver on the operator's own network; tests). Off: such addresses
    /// are refused, after DNS resolution, on every attempt.
    #[arg(long, env = "VIDPULSE_WEBHOOK_ALLOW_PRIVATE", default_value_t = false)]
    pub webhook_allow_private: bool,
    /// Live settings of the platform adapters.
    #[command(flatten)]
    pub live: LiveArgs,
}

/// Platform data sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Upstream {
    /// Built in, offline, deterministic.
    Simulated,
    /// The real platform adapters.
    Live,
}

/// The settings of the runtime, typed and validated.
#[derive(Debug, Clone)]
pub struct RuntimeSettings {
    /// Where platform data comes from.
    pub upstream: Upstream,
    /// Refresh schedule.
    pub schedule: RefreshSchedule,
    /// Faults of the simulated source.
    pub simulated: SimulatedConfig,
    /// Settings of the live adapters (validated when `upstream` is live).
    pub live: LiveArgs,
    /// Settings of the creator loops.
    pub creators: CreatorConfig,
    /// How long a worker's claim holds.
    pub lease: chrono::Duration,
    /// How long raw observations are kept (`None`: forever).
    pub observation_retention: Option<chrono::Duration>,
    /// Webhook delivery.
    pub webhooks: vidpulse_worker::WebhookConfig,
    /// Scheduled reads per organization per UTC day (`None`: no cap).
    pub read_cap: Option<i64>,
}

impl RuntimeArgs {
    /// Validates and types the settings; the error names the setting.
    pub fn settings(&self) -> anyhow::Result<RuntimeSettings> {
        let extended = vidpulse_domain::schedule::parse_interval(&self.refresh_extended_interval)
            .map_err(|e| anyhow::anyhow!("VIDPULSE_REFRESH_EXTENDED_INTERVAL: {e}"))?;
        if !(chrono::Duration::minutes(1)..=chrono::Duration::days(7)).contains(&extended) {
            anyhow::bail!(
                "VIDPULSE_REFRESH_EXTENDED_INTERVAL must be between 1m and 7d; got {}",
                self.refresh_extended_interval
            );
        }
        let schedule = RefreshSchedule::parse(&self.refresh_schedule)
            .and_then(|s| s.with_extended(extended))
            .map_err(|e| anyhow::anyhow!("VIDPULSE_REFRESH_SCHEDULE: {e}"))?;
        if self.max_reads_per_org_per_day > i64::MAX as u64 {
            anyhow::bail!("VIDPULSE_MAX_READS_PER_ORG_PER_DAY is too large");
        }
        for (name, rate) in [
            ("VIDPULSE_SIM_FAIL_RATE", self.sim_fail_rate),
            ("VIDPULSE_SIM_GONE_RATE", self.sim_gone_rate),
        ] {
            if !(0.0..=1.0).contains(&rate) {
                anyhow::bail!("{name} must be between 0 and 1; got {rate}");
            }
        }
        if self.upstream == Upstream::Live {
            self.live.validate()?;
        }
        for (name, secs) in [
            ("VIDPULSE_JOB_TIMEOUT_SECS", self.job_timeout_secs),
            (
                "VIDPULSE_JOB_SWEEP_INTERVAL_SECS",
                self.job_sweep_interval_secs,
            ),
        ] {
            if !(1..=30 * 86_400).contains(&secs) {
                anyhow::bail!("{name} must be between 1 and 2592000 seconds; got {secs}");
            }
        }
        if !(10..=3600).contains(&self.worker_lease_secs) {
            anyhow::bail!(
                "VIDPULSE_WORKER_LEASE_SECS must be between 10 and 3600 seconds; got {}",
                self.worker_lease_secs
            );
        }
        let lease = chrono::Duration::seconds(self.worker_lease_secs as i64);
        if self.observation_retention_days != 0
            && !(31..=36_500).contains(&self.observation_retention_days)
        {
            anyhow::bail!(
                "VIDPULSE_OBSERVATION_RETENTION_DAYS must be 0 (keep all) or between 31 and 36500; got {}",
                self.observation_retention_days
            );
        }
        let observation_retention = (self.observation_retention_days > 0)
            .then(|| chrono::Duration::days(self.observation_retention_days as i64));
        Ok(RuntimeSettings {
            upstream: self.upstream,
            schedule,
            simulated: SimulatedConfig {
                fail_rate: self.sim_fail_rate,
                gone_rate: self.sim_gone_rate,
                latency: Duration::from_millis(self.sim_latency_ms),
                ..SimulatedConfig::default()
            },
            live: self.live.clone(),
            creators: CreatorConfig {
                job_timeout: chrono::Duration::seconds(self.job_timeout_secs as i64),
                sweep_interval: Duration::from_secs(self.job_sweep_interval_secs),
                lease,
                ..CreatorConfig::default()
            },
            lease,
            observation_retention,
            webhooks: vidpulse_worker::WebhookConfig {
                allow_private: self.webhook_allow_private,
                lease,
                ..vidpulse_worker::WebhookConfig::default()
            },
            read_cap: (self.max_reads_per_org_per_day > 0)
                .then_some(self.max_reads_per_org_per_day as i64),
        })
    }
}

impl RuntimeSettings {
    /// The settings of the background loops.
    pub fn worker(&self) -> crate::app::WorkerSettings {
        crate::app::WorkerSettings {
            refresh: vidpulse_worker::RefreshConfig {
                schedule: self.schedule.clone(),
                lease: self.lease,
                observation_retention: self.observation_retention,
                read_cap: self.read_cap,
                ..vidpulse_worker::RefreshConfig::default()
            },
            creators: self.creators.clone(),
            webhooks: self.webhooks.clone(),
        }
    }
}
