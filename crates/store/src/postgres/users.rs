//! Users, memberships, team, API key management and settings: the shared
//! implementation of [`crate::users`].

use super::PgStore;

crate::users::user_store_impl!(PgStore, false);
