//! Users, memberships, team, invitations, API key management and settings:
//! the shared implementations of [`crate::users`] and [`crate::invites`].

use super::SqliteStore;

crate::users::user_store_impl!(SqliteStore, true);
crate::invites::invite_store_impl!(SqliteStore, true);
crate::bloggers::blogger_store_impl!(SqliteStore, true);
crate::ops::ops_store_impl!(SqliteStore, true);
