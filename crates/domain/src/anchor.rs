//! What the service was told of a video from outside its platform, which a
//! stand-in platform continues from (docs/platforms.md, "The simulated
//! platforms").

use crate::metrics::Observation;

/// A video's anchor: the latest reading an organization imported for it
/// (any organization's: an import copies the platform's numbers) and the
/// author an organization gave (its URL's handle or its import's channel).
/// Either may be missing, never both.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Anchor {
    /// The latest imported reading.
    pub reading: Option<Observation>,
    /// The author's handle, without `@`.
    pub author: Option<String>,
}
