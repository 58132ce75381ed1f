//! The administrative commands: organizations, plans, web-app users, API
//! keys, dashboard tokens and statistics imports.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use uuid::Uuid;
use vidpulse_domain::Plan;
use vidpulse_domain::identity::Role;

use super::serve::IdentityArgs;

/// Administrative commands.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create an organization.
    CreateOrg {
        /// Its name.
        #[arg(long)]
        name: String,
        /// Its plan: free, pro or business (default: `--default-plan`).
        #[arg(long, value_parser = parse_plan)]
        plan: Option<Plan>,
        /// This user (created when unknown) becomes its owner.
        #[arg(long)]
        owner_email: Option<String>,
        /// The plan of organizations created without `--plan`.
        #[command(flatten)]
        defaults: DefaultPlanArgs,
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
    /// Create a web-app user (or find the one with this address) and print a
    /// one-time link that sets their password (also how an operator resets one).
    CreateUser {
        /// The user's e-mail address.
        #[arg(long)]
        email: String,
        /// An organization's id to add the user to, or the name of an
        /// organization: theirs of that name when they have one, else a new
        /// one created for them.
        #[arg(long = "org", value_name = "ORG_ID_OR_NAME")]
        org: Option<String>,
        /// Their role there: viewer, editor, admin or owner (default: owner
        /// of a new organization, viewer of an existing one).
        #[arg(long, value_parser = parse_role, requires = "org")]
        role: Option<Role>,
        /// The plan of the organization created for them: free, pro or
        /// business (default: `--default-plan`); an existing organization on
        /// another plan is refused (`admin set-plan` changes a plan).
        #[arg(long, value_parser = parse_plan, requires = "org")]
        plan: Option<Plan>,
        /// The plan of organizations created without `--plan`.
        #[command(flatten)]
        defaults: DefaultPlanArgs,
        /// The web app's address, for the link.
        #[arg(
            long,
            env = "VIDPULSE_DASHBOARD_URL",
            default_value = "http://127.0.0.1:8080"
        )]
        app_url: String,
        /// Hours the link works (1 to 720).
        #[arg(long, default_value_t = 72,
              value_parser = clap::value_parser!(u32).range(1..=720))]
        link_hours: u32,
    },
    /// Create an API key; the key is shown once and stored only as a hash.
    CreateApiKey {
        /// The organization's id.
        #[arg(long = "org", value_name = "ORG_ID")]
        org: Uuid,
        /// A label for the key.
        #[arg(long)]
        name: Option<String>,
        /// What the key may do: `read` (read only) or `read,write` (full access).
        #[arg(long, default_value = "read,write")]
        scopes: vidpulse_domain::api_key::Scopes,
    },
}

/// The plan of new organizations that name none, shared by `serve` (an
/// organization started in the web app) and the admin commands that create
/// organizations.
#[derive(Debug, Clone, Args)]
pub struct DefaultPlanArgs {
    /// Plan of new organizations that name none: free, pro or business
    /// (organizations started in the web app, and those `admin create-org`
    /// and `admin create-user` create without `--plan`).
    #[arg(long, env = "VIDPULSE_DEFAULT_PLAN", value_parser = parse_plan, default_value = "free")]
    pub default_plan: Plan,
}

fn parse_role(s: &str) -> Result<Role, String> {
    Role::parse(s).ok_or_else(|| format!("`{s}` is not a role: viewer, editor, admin or owner"))
}

fn parse_plan(s: &str) -> Result<Plan, String> {
    s.parse::<Plan>().map_err(|e| e.to_string())
}
