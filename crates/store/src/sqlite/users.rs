//! The shared implementation of [`crate::bloggers`].

use super::SqliteStore;

crate::bloggers::blogger_store_impl!(SqliteStore, true);
