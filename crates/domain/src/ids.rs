//! Typed identifiers, so an organization id can never be passed where a video
//! id is expected.

use std::fmt;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! uuid_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A new, time-ordered id (UUID v7).
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl From<Uuid> for $name {
            fn from(u: Uuid) -> Self {
                Self(u)
            }
        }
    };
}

uuid_id!(
    /// An organization (tenant).
    OrgId
);
uuid_id!(
    /// An API key of the public API.
    ApiKeyId
);
uuid_id!(
    /// A video as one organization tracks it: the public `video_id`.
    VideoId
);
uuid_id!(
    /// A user of the dashboard.
    UserId
);
uuid_id!(
    /// A campaign of an organization.
    CampaignId
);
