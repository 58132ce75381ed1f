//! Answers assembled from parts, some compressed ahead of time: how the
//! record cache's kept answers go out with each request's own `meta`.
//!
//! A deflate stream is a sequence of blocks. A compressor flushed with a
//! sync flush stops on a byte boundary with no block marked final, and a
//! block that follows may come from another compressor, as long as it refers
//! to nothing before it. So a part compressed once and kept ([`Deflated`])
//! can be sent in many gzip answers between parts that change per answer,
//! which go as stored (uncompressed) blocks; the answer's CRC-32 is combined
//! from the parts' own. pigz compresses in parallel the same way.
//!
//! Clients that do not accept gzip get the same bytes inflated.

use std::io;

use axum::http::HeaderMap;
use axum::http::header::ACCEPT_ENCODING;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress};

/// The gzip header: magic, deflate, no flags, no time, no extra flags,
/// unknown system (RFC 1952, 2.3).
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

/// The most bytes one stored block carries (RFC 1951, 3.2.4).
const STORED_MAX: usize = u16::MAX as usize;

/// Bytes compressed once, as raw deflate blocks ending on a byte boundary
/// with no final block, with their CRC-32 and length.
#[derive(Debug, Clone)]
pub struct Deflated {
    blocks: Box<[u8]>,
    crc: u32,
    len: u64,
}

impl Deflated {
    /// Compresses `plain` (zlib's default level: the part is kept and sent
    /// many times).
    pub fn new(plain: &[u8]) -> io::Result<Self> {
        let mut compress = Compress::new(Compression::default(), false);
        let mut blocks = Vec::with_capacity(plain.len() / 4 + 64);
        loop {
            if blocks.capacity() - blocks.len() < 64 {
                blocks.reserve(blocks.capacity().max(1024));
            }
            let consumed = usize::try_from(compress.total_in()).map_err(io::Error::other)?;
            let rest = plain.get(consumed..).unwrap_or_default();
            compress
                .compress_vec(rest, &mut blocks, FlushCompress::Sync)
                .map_err(io::Error::other)?;
            // Done when all is read and the flush did not run out of room.
            if compress.total_in() == plain.len() as u64 && blocks.len() < blocks.capacity() {
                break;
            }
        }
        Ok(Self {
            blocks: blocks.into_boxed_slice(),
            crc: crc32fast::hash(plain),
            len: plain.len() as u64,
        })
    }

    /// The compressed size, in bytes.
    pub fn compressed_len(&self) -> usize {
        self.blocks.len()
    }

    /// Appends the plain bytes to `out`.
    fn inflate_into(&self, out: &mut Vec<u8>) -> io::Result<()> {
        let len = usize::try_from(self.len).map_err(io::Error::other)?;
        let end = out.len() + len;
        out.reserve(len);
        let mut inflate = Decompress::new(false);
        while out.len() < end {
            let consumed = usize::try_from(inflate.total_in()).map_err(io::Error::other)?;
            let before = out.len();
            inflate
                .decompress_vec(
                    self.blocks.get(consumed..).unwrap_or_default(),
                    out,
                    FlushDecompress::Sync,
                )
                .map_err(io::Error::other)?;
            if out.len() == before {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "a compressed part ended early",
                ));
            }
        }
        Ok(())
    }
}

/// One part of an answer.
#[derive(Debug, Clone, Copy)]
pub enum Part<'a> {
    /// Compressed ahead of time.
    Deflated(&'a Deflated),
    /// Bytes of this answer only.
    Plain(&'a [u8]),
}

/// The parts, one after the other, as one gzip member.
pub fn gzip(parts: &[Part]) -> Vec<u8> {
    let size: usize = parts
        .iter()
        .map(|p| match p {
            Part::Deflated(d) => d.blocks.len(),
            Part::Plain(b) => b.len() + 5 * (b.len() / STORED_MAX + 1),
        })
        .sum();
    let mut out = Vec::with_capacity(GZIP_HEADER.len() + size + 5 + 8);
    out.extend_from_slice(&GZIP_HEADER);
    let mut crc = crc32fast::Hasher::new();
    for part in parts {
        match part {
            Part::Deflated(d) => {
                out.extend_from_slice(&d.blocks);
                crc.combine(&crc32fast::Hasher::new_with_initial_len(d.crc, d.len));
            }
            Part::Plain(bytes) => {
                for block in bytes.chunks(STORED_MAX) {
                    stored_block(&mut out, block, false);
                }
                crc.update(bytes);
            }
        }
    }
    let len = plain_len(parts);
    stored_block(&mut out, &[], true);
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    // ISIZE is the length modulo 2^32 (RFC 1952, 2.3.1).
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out
}

/// The parts' length uncompressed.
fn plain_len(parts: &[Part]) -> u64 {
    parts
        .iter()
        .map(|p| match p {
            Part::Deflated(d) => d.len,
            Part::Plain(b) => b.len() as u64,
        })
        .sum()
}

/// The parts, one after the other, uncompressed.
pub fn plain(parts: &[Part]) -> io::Result<Vec<u8>> {
    let size = plain_len(parts);
    let mut out = Vec::with_capacity(usize::try_from(size).map_err(io::Error::other)?);
    for part in parts {
        match part {
            Part::Deflated(d) => d.inflate_into(&mut out)?,
            Part::Plain(bytes) => out.extend_from_slice(bytes),
        }
    }
    Ok(out)
}

/// A stored block of at most [`STORED_MAX`] bytes: the header bits (final
/// flag, type 00) padded to a byte, the length and its complement, the bytes.
fn stored_block(out: &mut Vec<u8>, bytes: &[u8], last: bool) {
    let len = bytes.len() as u16;
    out.push(u8::from(last));
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Whether the request's `Accept-Encoding` accepts gzip (RFC 9110, 12.5.3):
/// `gzip` (or `x-gzip`) with a non-zero quality, or `*` when gzip is not
/// named.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut named = None;
    let mut any = None;
    for value in headers.get_all(ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut fields = item.split(';');
            let coding = fields.next().unwrap_or_default().trim();
            let accepted = fields
                .filter_map(|f| f.trim().strip_prefix("q="))
                .next_back()
                .is_none_or(|q| q.trim().parse::<f32>().is_ok_and(|q| q > 0.0));
            if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
                named = Some(accepted);
            } else if coding == "*" {
                any = Some(accepted);
            }
        }
    }
    named.or(any).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use axum::http::HeaderValue;
    use flate2::read::MultiGzDecoder;
    use rstest::rstest;

    use super::*;

    fn gunzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        // A single member: the plain decoder reads it whole, and stops there.
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn history(readings: usize) -> Vec<u8> {
        let mut s = String::from("{\"views\":{");
        for i in 0..readings {
            s.push_str(&format!(
                "\"2026-10-{:02} {:02}:15:00.000000+00\":{},",
                1 + i / 24,
                i % 24,
                1000 + i * 37
            ));
        }
        s.push_str("\"end\":0}}");
        s.into_bytes()
    }

    #[test]
    fn spliced_parts_make_one_gzip_member_and_inflate_alike() {
        let head = history(300);
        let kept = Deflated::new(&head).unwrap();
        assert!(kept.compressed_len() < head.len() / 3);
        let big_tail = vec![b'x'; 70_000]; // more than one stored block
        for tail in [&b",\"meta\":{\"request_id\":\"r1\"}}"[..], b"", &big_tail] {
            let parts = [
                Part::Plain(b"{\"data\":"),
                Part::Deflated(&kept),
                Part::Plain(tail),
            ];
            let expected = [&b"{\"data\":"[..], &head, tail].concat();
            let zipped = gzip(&parts);
            assert_eq!(gunzip(&zipped), expected);
            // The same member read by a decoder of concatenated members.
            let mut again = Vec::new();
            MultiGzDecoder::new(&zipped[..])
                .read_to_end(&mut again)
                .unwrap();
            assert_eq!(again, expected);
            assert_eq!(plain(&parts).unwrap(), expected);
        }
    }

    #[test]
    fn one_kept_part_serves_many_answers_and_empty_parts_are_fine() {
        let kept = Deflated::new(b"").unwrap();
        assert_eq!(gunzip(&gzip(&[Part::Deflated(&kept)])), b"");
        let kept = Deflated::new(&history(10)).unwrap();
        for n in 0..3 {
            let tail = format!("#{n}");
            let parts = [
                Part::Deflated(&kept),
                Part::Deflated(&kept),
                Part::Plain(tail.as_bytes()),
            ];
            let expected = [history(10), history(10), tail.clone().into_bytes()].concat();
            assert_eq!(gunzip(&gzip(&parts)), expected);
        }
    }

    #[rstest]
    #[case(None, false)]
    #[case(Some("gzip"), true)]
    #[case(Some("GZIP"), true)]
    #[case(Some("gzip, deflate, br"), true)]
    #[case(Some("br;q=1.0, gzip;q=0.8"), true)]
    #[case(Some("x-gzip"), true)]
    #[case(Some("gzip;q=0"), false)]
    #[case(Some("gzip; q=0.0"), false)]
    #[case(Some("*"), true)]
    #[case(Some("*;q=0"), false)]
    #[case(Some("*, gzip;q=0"), false)]
    #[case(Some("identity"), false)]
    #[case(Some("deflate, br"), false)]
    #[case(Some("gzip;q=bogus"), false)]
    #[case(Some(""), false)]
    fn accept_encoding_is_read_as_rfc_9110_says(#[case] header: Option<&str>, #[case] gzip: bool) {
        let mut headers = HeaderMap::new();
        if let Some(h) = header {
            headers.insert(ACCEPT_ENCODING, HeaderValue::from_str(h).unwrap());
        }
        assert_eq!(accepts_gzip(&headers), gzip, "{header:?}");
    }
}
