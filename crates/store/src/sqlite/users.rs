//! Users, memberships, team, API key management and settings: the shared
//! implementation of [`crate::users`].

use super::SqliteStore;

crate::users::user_store_impl!(SqliteStore, true);
