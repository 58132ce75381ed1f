//! The one error type of the store, mapped once from driver errors, and the
//! two ways a stored value fails to decode.

/// Why a store call failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The record does not exist (or belongs to another organization).
    #[error("not found")]
    NotFound,
    /// A uniqueness or foreign-key constraint refused the write.
    #[error("conflict on {constraint}")]
    Conflict {
        /// The constraint's name, or the message when the driver gives none.
        constraint: String,
    },
    /// The database cannot be reached or is overloaded; retry later.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// The store was configured wrongly (bad URL, unreadable path).
    #[error("{0}")]
    Config(String),
    /// Stored data that does not decode (a bug or a hand-edited row).
    #[error("corrupt data: {0}")]
    Corrupt(String),
    /// Anything else from the driver.
    #[error(transparent)]
    Other(sqlx::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        match e {
            sqlx::Error::RowNotFound => StoreError::NotFound,
            // The connection, not the request: the database is away, or the
            // link to it broke mid-conversation (a cut connection reads as a
            // protocol error while it is being opened).
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::WorkerCrashed => StoreError::Unavailable(e.to_string()),
            // Connection exceptions (class 08), shutdown and start-up (57P0x),
            // too many connections (53300).
            sqlx::Error::Database(ref db)
                if db.code().is_some_and(|c| {
                    c.starts_with("08") || c.starts_with("57P0") || c == "53300"
                }) =>
            {
                StoreError::Unavailable(e.to_string())
            }
            sqlx::Error::Database(ref db)
                if db.is_unique_violation() || db.is_foreign_key_violation() =>
            {
                StoreError::Conflict {
                    constraint: db
                        .constraint()
                        .map(str::to_owned)
                        .unwrap_or_else(|| db.message().to_owned()),
                }
            }
            other => StoreError::Other(other),
        }
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::Other(sqlx::Error::Migrate(Box::new(e)))
    }
}

/// [`StoreError::Corrupt`] saying what did not decode.
pub(crate) fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

/// A stored platform id as a [`Platform`](vidpulse_domain::Platform).
pub(crate) fn parse_platform(s: &str) -> Result<vidpulse_domain::Platform, StoreError> {
    vidpulse_domain::Platform::from_id(s).map_err(corrupt)
}
