//! Rebuilds the store when a migration is added or changed: `sqlx::migrate!`
//! embeds the `migrations/` folders at compile time, and cargo does not
//! watch them on its own (a new migration would otherwise be missing from
//! an incremental build).

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
