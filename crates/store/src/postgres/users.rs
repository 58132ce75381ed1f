//! Users, memberships, team, invitations, API key management and settings:
//! the shared implementations of [`crate::users`] and [`crate::invites`].

use super::PgStore;

crate::users::user_store_impl!(PgStore, false);
crate::invites::invite_store_impl!(PgStore, false);
crate::bloggers::blogger_store_impl!(PgStore, false);
crate::ops::ops_store_impl!(PgStore, false);
