//! The shared implementations of [`crate::bloggers`] and [`crate::ops`].

use super::SqliteStore;

crate::bloggers::blogger_store_impl!(SqliteStore, true);
crate::ops::ops_store_impl!(SqliteStore, true);
