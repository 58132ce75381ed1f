//! The administrative commands: organizations, plans, API keys, dashboard
//! tokens and statistics imports.

use std::path::PathBuf;

use clap::Subcommand;
use uuid::Uuid;
use vidpulse_domain::Plan;

use super::serve::IdentityArgs;

/// Administrative commands.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create an organization.
    CreateOrg {
        /// Its name.
        #[arg(long)]
        name: String,
        /// Its plan.
        #[arg(long, value_parser = parse_plan, default_value = "free")]
        plan: Plan,
        /// This user (created when unknown) becomes its owner.
        #[arg(long)]
        owner_email: Option<String>,
    },
    /// Change an organization's plan, optionally overriding its quota and cap.
    SetPlan {
        /// The organization's id.
        #[arg(long = "org", value_name = "ORG_ID")]
        org: Uuid,
        /// The new plan.
        #[arg(long, value_parser = parse_plan)]
        plan: Plan,
        /// Tracked-video quota for this organization (default: the plan's).
        #[arg(long)]
        video_quota: Option<u32>,
        /// Tracked-creator cap for this organization (default: the plan's).
        #[arg(long)]
        creator_cap: Option<u32>,
    },
    /// Import historical statistics from a CSV file (all rows or none; idempotent).
    ImportStats {
        /// The organization's id.
        #[arg(long = "org", value_name = "ORG_ID")]
        org: Uuid,
        /// The CSV file: a header row, then `platform`, `external_video_id`,
        /// `captured_at` (RFC 3339), `views`, `likes`, `comments`, `reposts`,
        /// `saves`, and optionally `url`, `channel_username`, `title`,
        /// `published_at`, in any order (docs/operations.md, "Importing history").
        #[arg(long, value_name = "FILE.csv")]
        file: PathBuf,
    },
    /// Sign a dashboard token with the built-in development identity (HS256).
    IssueToken {
        /// The user's e-mail address.
        #[arg(long)]
        email: String,
        /// The subject (default: a stable id derived from the e-mail).
        #[arg(long)]
        sub: Option<String>,
        /// Lifetime in seconds (1 to 31,536,000).
        #[arg(long, default_value_t = 86_400)]
        ttl_secs: u64,
        /// Identity settings (secret, issuer, audience), as `serve` has them.
        #[command(flatten)]
        identity: IdentityArgs,
    },
    /// Create an API key; the key is shown once and stored only as a hash.
    CreateApiKey {
        /// The organization's id.
        #[arg(long = "org", value_name = "ORG_ID")]
        org: Uuid,
        /// A label for the key.
        #[arg(long)]
        name: Option<String>,
    },
}

fn parse_plan(s: &str) -> Result<Plan, String> {
    s.parse::<Plan>().map_err(|e| e.to_string())
}
