//! The shared implementation of [`crate::bloggers`].

use super::PgStore;

crate::bloggers::blogger_store_impl!(PgStore, false);
