//! `vidpulse`: see `vidpulse --help` and docs/configuration.md.

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;
use vidpulse::commands::{self, admin, import, print_json};
use vidpulse::config::{AdminCommand, Cli, Command};
use vidpulse::telemetry;
use vidpulse_domain::schedule::RefreshSchedule;
use vidpulse_domain::{Clock, SystemClock};
use vidpulse_store::StoreConfig;

/// mimalloc: glibc's allocator serialised the server's threads on its arena
/// locks under load (BENCHMARKS.md, "HTTP load").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // One clear line, not clap's usage block: a script reads it.
            // The message's first paragraph, joined (a missing argument is
            // named on the line after the first).
            let rendered = e.render().to_string();
            let line = rendered
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ");
            eprintln!(
                "{}",
                if line.is_empty() {
                    "error: invalid arguments"
                } else {
                    &line
                }
            );
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let quiet = matches!(cli.command, Command::Admin(_) | Command::Migrate);
    if quiet && std::env::var_os("RUST_LOG").is_none() {
        // Admin output is the JSON on stdout; keep stderr for the one error line.
        telemetry::init_with_default(cli.common.log_format, "warn");
    } else {
        telemetry::init(cli.common.log_format);
    }
    for name in vidpulse::config::unknown_variables() {
        tracing::warn!(variable = %name, "unknown VIDPULSE_ variable ignored (a typo?)");
    }
    let db = cli.common.database_url.as_str();
    match cli.command {
        Command::Serve(args) => commands::serve::run(db, &args).await,
        Command::Worker(args) => commands::worker::run(db, &args).await,
        Command::Migrate => print_json(&commands::migrate::run(db).await?),
        Command::Admin(cmd) => {
            let store = vidpulse_store::open(&StoreConfig::new(db)).await?;
            let now = SystemClock.now();
            let result = match cmd {
                AdminCommand::CreateOrg {
                    name,
                    plan,
                    owner_email,
                    defaults,
                } => admin::create_org(
                    &store,
                    &name,
                    plan.unwrap_or(defaults.default_plan),
                    owner_email.as_deref(),
                    now,
                )
                .await
                .and_then(|o| print_json(&o)),
                AdminCommand::SetPlan {
                    org,
                    plan,
                    video_quota,
                    creator_cap,
                } => admin::set_plan(&store, org, plan, video_quota, creator_cap)
                    .await
                    .and_then(|o| print_json(&o)),
                AdminCommand::ImportStats { org, file } => {
                    let window = RefreshSchedule::default().window;
                    import::import_stats(&store, org, &file, window, now)
                        .await
                        .and_then(|o| print_json(&o))
                }
                AdminCommand::IssueToken {
                    email,
                    sub,
                    ttl_secs,
                    identity,
                } => admin::issue_token(
                    &store,
                    identity.config(),
                    &email,
                    sub.as_deref(),
                    ttl_secs,
                    now,
                )
                .await
                .and_then(|o| print_json(&o)),
                AdminCommand::CreateUser {
                    email,
                    org,
                    role,
                    plan,
                    defaults,
                    app_url,
                    link_hours,
                } => admin::create_user_on(
                    &store,
                    admin::NewUser {
                        email: &email,
                        org: org.as_deref(),
                        role,
                        app_url: &app_url,
                        link_hours,
                    },
                    admin::PlanChoice {
                        plan,
                        default_plan: defaults.default_plan,
                    },
                    now,
                )
                .await
                .and_then(|o| print_json(&o)),
                AdminCommand::CreateApiKey { org, name, scopes } => {
                    admin::create_scoped_api_key(&store, org, name.as_deref(), scopes, now)
                        .await
                        .and_then(|o| print_json(&o))
                }
            };
            store.close().await;
            result
        }
    }
}
