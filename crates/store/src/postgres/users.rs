//! The shared implementations of [`crate::bloggers`] and [`crate::ops`].

use super::PgStore;

crate::bloggers::blogger_store_impl!(PgStore, false);
crate::ops::ops_store_impl!(PgStore, false);
