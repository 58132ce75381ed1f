//! The environment variables this build reads, so a misspelt `VIDPULSE_*`
//! variable is reported at start instead of silently ignored.

use clap::CommandFactory;

use super::Cli;

/// Variables read outside the command line: the log filter (read by the
/// logging set-up, default `info`) and the test suite's PostgreSQL.
pub(super) const OTHER_VARIABLES: &[&str] = &["RUST_LOG", "VIDPULSE_TEST_POSTGRES_URL"];

/// Every variable this build reads: those of every flag of every command
/// (read from the command-line definitions, so the list cannot drift from
/// them), and the few read outside the command line (`OTHER_VARIABLES`).
pub fn known_variables() -> Vec<String> {
    fn walk(cmd: &clap::Command, out: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            if let Some(env) = arg.get_env().and_then(|e| e.to_str()) {
                out.push(env.to_owned());
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, out);
        }
    }
    let mut out: Vec<String> = OTHER_VARIABLES.iter().map(|v| (*v).to_owned()).collect();
    walk(&Cli::command(), &mut out);
    out.sort();
    out.dedup();
    out
}

/// Names of `VIDPULSE_*` variables in the environment that this build does not read
/// (a typo, usually).
pub fn unknown_variables() -> Vec<String> {
    let known = known_variables();
    std::env::vars()
        .map(|(k, _)| k)
        .filter(|k| k.starts_with("VIDPULSE_") && !known.contains(k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_variable_is_known_and_nothing_else() {
        let known = known_variables();
        for documented in [
            "VIDPULSE_PUBLIC_URL",
            "VIDPULSE_FILES_DIR",
            "VIDPULSE_OUTBOX_DIR",
            "VIDPULSE_MAIL_FROM",
            "VIDPULSE_DASHBOARD_URL",
            "VIDPULSE_JWT_ISSUER",
            "VIDPULSE_JWT_AUDIENCE",
            "VIDPULSE_JWT_SECRET",
            "VIDPULSE_REDIS_URL",
            "VIDPULSE_TEST_POSTGRES_URL",
            "DATABASE_URL",
        ] {
            assert!(known.iter().any(|k| k == documented), "{documented}");
        }
        assert!(!known.iter().any(|k| k == "VIDPULSE_LISTEN_ADDR"));
    }
}
