//! Compression of payloads: zstd (the default since version 3), LZ4 (the
//! payload of `compression='lz4'` files and the body of packed attribute
//! blocks), each with the bound on what a hostile size may make the reader
//! allocate.
//!
//! A zstd payload is a sequence of chunks, each at most [`ZSTD_CHUNK`]
//! bytes before compression and compressed on its own, so that both
//! directions run on plait's worker threads:
//!
//! ```text
//!   payload  = chunk*            (until the end)
//!   chunk    = u32 size, u32 stored size, stored bytes
//!              stored size == size: the bytes as they are (incompressible)
//!              else: one zstd frame that decompresses to exactly `size` bytes
//! ```

use plait_core::Result;
use rayon::prelude::*;

use crate::wire::corrupt;

/// The most bytes of payload one zstd chunk holds.
pub const ZSTD_CHUNK: usize = 1 << 20;

/// zstd's level: its own default, which compresses numbers and text about
/// as well as level 9 does on plait's columns at several times the speed.
const ZSTD_LEVEL: i32 = 3;

/// The largest expansion zstd can give: a block of at most 128 KiB costs
/// at least 4 bytes (a 3-byte header and one repeated byte). A chunk
/// declaring more than this many times its stored size is refused before
/// anything is allocated.
const ZSTD_MAX_RATIO: u64 = 32_768;

/// The largest expansion LZ4 can give.
const LZ4_MAX_RATIO: u64 = 255;

/// `payload` as zstd chunks, compressed on plait's worker threads,
/// appended to `out`.
pub fn zstd_compress(payload: &[u8], out: &mut Vec<u8>) -> Result<()> {
    // Each chunk's zstd frame, or `None` to store the chunk as it is.
    let stored: Vec<std::io::Result<Option<Vec<u8>>>> = plait_core::parallel::install(|| {
        payload
            .par_chunks(ZSTD_CHUNK)
            .map_init(
                || zstd::bulk::Compressor::new(ZSTD_LEVEL),
                |compressor, chunk| {
                    let compressed = compressor.as_mut().map_err(|e| std::io::Error::other(e.to_string()))?.compress(chunk)?;
                    // Stored as it is when zstd does not make it smaller.
                    Ok((compressed.len() < chunk.len()).then_some(compressed))
                },
            )
            .collect()
    });
    for (chunk, stored) in payload.chunks(ZSTD_CHUNK).zip(stored) {
        let stored = stored.map_err(|e| plait_core::Error::value("kd.dumps", format!("zstd compression failed: {e}")))?;
        let stored = stored.as_deref().unwrap_or(chunk);
        out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        out.extend_from_slice(&(stored.len() as u32).to_le_bytes());
        out.extend_from_slice(stored);
    }
    Ok(())
}

/// The payload of [`zstd_compress`]. Every chunk's sizes are checked
/// before the output is allocated; chunks decompress on plait's worker
/// threads, each into its own part of the output.
pub fn zstd_decompress(stored: &[u8]) -> Result<Vec<u8>> {
    let mut chunks: Vec<(usize, &[u8])> = Vec::new();
    let mut rest = stored;
    let mut total = 0usize;
    while !rest.is_empty() {
        let (Some(size), Some(stored_size)) = (rest.get(..4), rest.get(4..8)) else {
            return Err(corrupt("a zstd chunk header cut short"));
        };
        let size = u32::from_le_bytes(size.try_into().expect("4 bytes")) as usize;
        let stored_size = u32::from_le_bytes(stored_size.try_into().expect("4 bytes")) as usize;
        let Some(bytes) = rest.get(8..8 + stored_size) else {
            return Err(corrupt(format!("a zstd chunk of {stored_size} bytes in the {} bytes left", rest.len() - 8)));
        };
        if size > ZSTD_CHUNK || stored_size > size || size as u64 > stored_size as u64 * ZSTD_MAX_RATIO {
            return Err(corrupt(format!("a zstd chunk with an impossible size ({size} bytes stored in {stored_size})")));
        }
        chunks.push((size, bytes));
        total += size;
        rest = &rest[8 + stored_size..];
    }
    let mut out = vec![0u8; total];
    let mut parts = Vec::with_capacity(chunks.len());
    let mut free = out.as_mut_slice();
    for (size, bytes) in chunks {
        let (part, tail) = free.split_at_mut(size);
        parts.push((part, bytes));
        free = tail;
    }
    plait_core::parallel::install(|| {
        parts.into_par_iter().try_for_each(|(part, bytes)| {
            if bytes.len() == part.len() {
                part.copy_from_slice(bytes);
                return Ok(());
            }
            match zstd::bulk::decompress_to_buffer(bytes, part) {
                Ok(n) if n == part.len() => Ok(()),
                Ok(n) => Err(corrupt(format!("a zstd chunk of {n} bytes declared as {}", part.len()))),
                Err(e) => Err(corrupt(format!("a zstd chunk: {e}"))),
            }
        })
    })?;
    Ok(out)
}

/// `bytes` LZ4-compressed (block format, the uncompressed size first as a
/// `u32`).
pub fn lz4_compress(bytes: &[u8]) -> Vec<u8> {
    lz4_flex::compress_prepend_size(bytes)
}

/// The bytes LZ4 compressed into `compressed` (block format, the
/// uncompressed size first): the compressed payload of a file, or the body
/// of a packed block. The declared size must be one LZ4 can reach from
/// that many bytes, so a hostile size is refused before anything is
/// allocated.
pub fn lz4_decompress(compressed: &[u8]) -> Result<Vec<u8>> {
    let declared = compressed.get(..4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as u64);
    match declared {
        Some(size) if size <= (compressed.len() as u64).saturating_mul(LZ4_MAX_RATIO) => {}
        _ => return Err(corrupt("a compressed payload with an impossible size")),
    }
    lz4_flex::decompress_size_prepended(compressed).map_err(|e| corrupt(format!("the compressed payload: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk_header(size: u32, stored: u32) -> Vec<u8> {
        [size.to_le_bytes(), stored.to_le_bytes()].concat()
    }

    #[test]
    fn zstd_payloads_round_trip_across_chunks() {
        let mut payload: Vec<u8> = (0..3 * ZSTD_CHUNK + 17).map(|i| (i % 251) as u8).collect();
        // An incompressible stretch, stored as it is.
        let mut state = 0x9e37_79b9_u32;
        for b in &mut payload[ZSTD_CHUNK..2 * ZSTD_CHUNK] {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            *b = state as u8;
        }
        let mut stored = Vec::new();
        zstd_compress(&payload, &mut stored).unwrap();
        assert!(stored.len() < payload.len() / 2);
        assert_eq!(zstd_decompress(&stored).unwrap(), payload);
        let mut empty = Vec::new();
        zstd_compress(&[], &mut empty).unwrap();
        assert_eq!(zstd_decompress(&empty).unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn hostile_zstd_chunks_are_refused_before_allocating() {
        let message = |stored: &[u8]| zstd_decompress(stored).unwrap_err().message;
        let mut big = chunk_header(ZSTD_CHUNK as u32 + 1, 1);
        big.push(0);
        assert!(message(&big).contains("impossible size"), "{}", message(&big));
        let mut ratio = chunk_header(40_000, 1);
        ratio.push(0);
        assert!(message(&ratio).contains("impossible size"));
        assert!(message(&[1, 0, 0]).contains("cut short"));
        assert!(message(&chunk_header(10, 20)).contains("bytes left"));
        // A frame that decompresses to less than its chunk declares.
        let frame = zstd::bulk::compress(&[7u8; 100], 3).unwrap();
        let mut short = chunk_header(200, frame.len() as u32);
        short.extend_from_slice(&frame);
        assert!(message(&short).contains("zstd chunk"));
        let mut garbage = chunk_header(200, 50);
        garbage.extend_from_slice(&[0xAB; 50]);
        assert!(message(&garbage).contains("zstd chunk"));
    }
}
