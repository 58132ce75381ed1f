//! Files the service keeps and serves (organization logos): behind
//! [`FileStore`] so an object store can take the local disk's place, and the
//! check an image passes before it is kept ([`check_image`]).

use std::fmt::Debug;
use std::io::Cursor;
use std::path::PathBuf;

use async_trait::async_trait;
use image::{ImageError, ImageFormat, ImageReader, Limits};

/// Where uploaded files live. Names are checked by [`is_safe_name`] first.
#[async_trait]
pub trait FileStore: Send + Sync + Debug {
    /// Stores `bytes` under `name`, replacing any file of that name.
    async fn put(&self, name: &str, bytes: &[u8]) -> std::io::Result<()>;
    /// The file `name`, if there is one.
    async fn get(&self, name: &str) -> std::io::Result<Option<Vec<u8>>>;
    /// Removes the file `name`; a file that is not there is not an error.
    async fn delete(&self, name: &str) -> std::io::Result<()>;
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

    async fn delete(&self, name: &str) -> std::io::Result<()> {
        if !is_safe_name(name) {
            return Ok(());
        }
        match tokio::fs::remove_file(self.root.join(name)).await {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
}

/// The widest and tallest image accepted, in pixels.
pub const MAX_IMAGE_SIDE: u32 = 4096;
/// The most memory a decode may take: a [`MAX_IMAGE_SIDE`] square at 8-bit RGBA.
const MAX_DECODE_BYTES: u64 = MAX_IMAGE_SIDE as u64 * MAX_IMAGE_SIDE as u64 * 4;

/// Why an upload is not an image the service keeps. The message is shown to the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageRefusal {
    /// Not PNG, JPEG or WebP by its first bytes.
    #[error("the file must be a PNG, JPEG or WebP image (SVG is not accepted)")]
    Format,
    /// It starts like an image but does not decode as one.
    #[error("the file is not a valid {0} image: {1}")]
    Corrupt(&'static str, String),
    /// Data follows the end of the image (an image glued to another file).
    #[error("the file has data after the end of its {0} image")]
    Trailing(&'static str),
    /// Wider or taller than [`MAX_IMAGE_SIDE`], or too big to decode.
    #[error(
        "the image is {0}; at most {MAX_IMAGE_SIDE}×{MAX_IMAGE_SIDE} pixels (8-bit colour) are accepted"
    )]
    TooLarge(String),
}

/// Checks that `bytes` are one whole PNG, JPEG or WebP image of at most
/// [`MAX_IMAGE_SIDE`] pixels a side, and answers its kind. The dimensions
/// are read from the header before anything is decoded; the decode runs
/// under [`image::Limits`]; a PNG or WebP must end where its structure says
/// (a JPEG's end is not recorded in it, so what follows its last marker is
/// ignored by browsers and left to the serving headers). CPU-bound: call it
/// off the async runtime.
pub fn check_image(bytes: &[u8]) -> Result<ImageKind, ImageRefusal> {
    let kind = ImageKind::sniff(bytes).ok_or(ImageRefusal::Format)?;
    let name = kind.display_name();
    let reader = || {
        let mut reader = ImageReader::with_format(Cursor::new(bytes), kind.format());
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_IMAGE_SIDE);
        limits.max_image_height = Some(MAX_IMAGE_SIDE);
        limits.max_alloc = Some(MAX_DECODE_BYTES);
        reader.limits(limits);
        reader
    };
    let refusal = |e: ImageError| match e {
        ImageError::Limits(_) => ImageRefusal::TooLarge("too large to decode".to_owned()),
        other => ImageRefusal::Corrupt(name, other.to_string()),
    };
    // The header's dimensions first, without the limits: a clear answer
    // for an image that is merely too large.
    let (width, height) = ImageReader::with_format(Cursor::new(bytes), kind.format())
        .into_dimensions()
        .map_err(refusal)?;
    if width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(ImageRefusal::TooLarge(format!("{width}×{height} pixels")));
    }
    if width == 0 || height == 0 {
        return Err(ImageRefusal::Corrupt(name, "it has no pixels".to_owned()));
    }
    reader().decode().map_err(refusal)?;
    let end = match kind {
        ImageKind::Png => png_end(bytes),
        ImageKind::Webp => webp_end(bytes),
        ImageKind::Jpeg => Some(bytes.len()),
    };
    if end != Some(bytes.len()) {
        return Err(ImageRefusal::Trailing(name));
    }
    Ok(kind)
}

/// Where a PNG ends: just after its `IEND` chunk (each chunk is a 4-byte
/// length, a 4-byte type, the data and a 4-byte CRC).
fn png_end(bytes: &[u8]) -> Option<usize> {
    let mut at = 8usize;
    loop {
        let header = bytes.get(at..at.checked_add(8)?)?;
        let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        let next = at
            .checked_add(12)?
            .checked_add(usize::try_from(len).ok()?)?;
        if &header[4..8] == b"IEND" {
            return Some(next);
        }
        at = next;
    }
}

/// Where a WebP ends: its RIFF header says how many bytes follow the first 8.
fn webp_end(bytes: &[u8]) -> Option<usize> {
    let size = bytes.get(4..8)?;
    let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]);
    8usize.checked_add(usize::try_from(size).ok()?)
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

    /// The format's name, for messages.
    pub fn display_name(self) -> &'static str {
        match self {
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
            Self::Webp => "WebP",
        }
    }

    /// The decoder's format.
    fn format(self) -> ImageFormat {
        match self {
            Self::Png => ImageFormat::Png,
            Self::Jpeg => ImageFormat::Jpeg,
            Self::Webp => ImageFormat::WebP,
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

    /// A `width`×`height` image encoded as `format`.
    fn encoded(format: ImageFormat, width: u32, height: u32) -> Vec<u8> {
        let image = image::RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        });
        let mut out = Cursor::new(Vec::new());
        image.write_to(&mut out, format).unwrap();
        out.into_inner()
    }

    #[test]
    fn whole_images_are_accepted() {
        for (format, kind) in [
            (ImageFormat::Png, ImageKind::Png),
            (ImageFormat::Jpeg, ImageKind::Jpeg),
            (ImageFormat::WebP, ImageKind::Webp),
        ] {
            assert_eq!(check_image(&encoded(format, 16, 9)), Ok(kind), "{format:?}");
        }
        let side = encoded(ImageFormat::Png, MAX_IMAGE_SIDE, 1);
        assert_eq!(check_image(&side), Ok(ImageKind::Png));
    }

    #[test]
    fn what_only_starts_like_an_image_is_refused() {
        let html = b"<html><script>alert(document.cookie)</script></html>";
        let polyglot = [&b"\x89PNG\r\n\x1a\n"[..], html].concat();
        assert!(matches!(
            check_image(&polyglot),
            Err(ImageRefusal::Corrupt("PNG", _))
        ));
        for format in [ImageFormat::Png, ImageFormat::WebP] {
            let glued = [encoded(format, 4, 4).as_slice(), html].concat();
            assert!(
                matches!(check_image(&glued), Err(ImageRefusal::Trailing(_))),
                "{format:?}"
            );
        }
        let mut cut = encoded(ImageFormat::Png, 64, 64);
        cut.truncate(cut.len() / 2);
        assert!(matches!(check_image(&cut), Err(ImageRefusal::Corrupt(..))));
        assert_eq!(check_image(b"<svg/>"), Err(ImageRefusal::Format));
        assert_eq!(check_image(b""), Err(ImageRefusal::Format));
    }

    #[test]
    fn oversize_images_are_refused_from_their_header() {
        for (width, height) in [(MAX_IMAGE_SIDE + 1, 1), (1, MAX_IMAGE_SIDE + 1)] {
            let image = encoded(ImageFormat::Png, width, height);
            assert_eq!(
                check_image(&image),
                Err(ImageRefusal::TooLarge(format!("{width}×{height} pixels")))
            );
        }
        // A header claiming a huge image over almost no data: refused before
        // any pixel is decoded.
        let mut bomb = encoded(ImageFormat::Png, 1, 1);
        bomb[16..24].copy_from_slice(&[0, 1, 0, 0, 0, 1, 0, 0]);
        let crc = crc32fast::hash(&bomb[12..29]).to_be_bytes();
        bomb[29..33].copy_from_slice(&crc);
        assert_eq!(
            check_image(&bomb),
            Err(ImageRefusal::TooLarge("65536×65536 pixels".to_owned()))
        );
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
