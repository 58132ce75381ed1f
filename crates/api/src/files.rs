//! Files the service keeps and serves (organization logos): behind
//! [`FileStore`] so an object store can take the local disk's place.

use std::fmt::Debug;
use std::path::PathBuf;

use async_trait::async_trait;

/// Where uploaded files live. Names are checked by [`is_safe_name`] first.
#[async_trait]
pub trait FileStore: Send + Sync + Debug {
    /// Stores `bytes` under `name`, replacing any file of that name.
    async fn put(&self, name: &str, bytes: &[u8]) -> std::io::Result<()>;
    /// The file `name`, if there is one.
    async fn get(&self, name: &str) -> std::io::Result<Option<Vec<u8>>>;
}

/// Whether `name` is one the service writes: lowercase letters, digits and
/// `-`, one `.` and an extension; nothing that leaves the folder.
pub fn is_safe_name(name: &str) -> bool {
    let Some((stem, ext)) = name.split_once('.') else {
        return false;
    };
    !stem.is_empty()
        && stem.len() <= 128
        && stem
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && matches!(ext, "png" | "jpg" | "webp")
}

/// Files in a folder of the local disk (`data/files` by default).
#[derive(Debug, Clone)]
pub struct LocalFiles {
    root: PathBuf,
}

impl LocalFiles {
    /// Files under `root` (created on first write).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }
}

#[async_trait]
impl FileStore for LocalFiles {
    async fn put(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        if !is_safe_name(name) {
            return Err(std::io::Error::other(format!("refused file name {name:?}")));
        }
        tokio::fs::create_dir_all(&self.root).await?;
        // Write beside, then rename: a reader never sees half a file.
        let tmp = self.root.join(format!(".{name}.tmp"));
        tokio::fs::write(&tmp, bytes).await?;
        tokio::fs::rename(&tmp, self.root.join(name)).await
    }

    async fn get(&self, name: &str) -> std::io::Result<Option<Vec<u8>>> {
        if !is_safe_name(name) {
            return Ok(None);
        }
        match tokio::fs::read(self.root.join(name)).await {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// An image format accepted for logos, recognised by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// WebP.
    Webp,
}

impl ImageKind {
    /// Recognises PNG, JPEG and WebP by their signatures; anything else
    /// (SVG included: it can carry scripts) is `None`.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(Self::Webp)
        } else {
            None
        }
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Webp => "webp",
        }
    }

    /// The media type.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Webp => "image/webp",
        }
    }

    /// The kind of a stored file, by its extension.
    pub fn of_name(name: &str) -> Option<Self> {
        match name.rsplit_once('.')?.1 {
            "png" => Some(Self::Png),
            "jpg" => Some(Self::Jpeg),
            "webp" => Some(Self::Webp),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_could_escape_are_refused() {
        assert!(is_safe_name("0a1b-logo.png"));
        for bad in [
            "../x.png",
            "a/b.png",
            "x.svg",
            ".png",
            "X.png",
            "a.png.exe",
            "a",
        ] {
            assert!(!is_safe_name(bad), "{bad}");
        }
    }

    #[test]
    fn images_are_recognised_by_content() {
        assert_eq!(
            ImageKind::sniff(b"\x89PNG\r\n\x1a\nrest"),
            Some(ImageKind::Png)
        );
        assert_eq!(
            ImageKind::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(ImageKind::Jpeg)
        );
        assert_eq!(
            ImageKind::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ImageKind::Webp)
        );
        assert_eq!(
            ImageKind::sniff(b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
            None
        );
        assert_eq!(ImageKind::sniff(b"GIF89a"), None);
    }
}
