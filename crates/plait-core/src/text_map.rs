//! Building a text column one value per item, in parallel chunks for long
//! inputs: what the text kernels and casts to STRING write through.

use std::ops::Range;

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use rayon::prelude::*;

use crate::column::VarBinary;
use crate::parallel::{self, PARALLEL_MIN};

/// Items per parallel task.
const TEXT_CHUNK: usize = 1 << 14;

/// A growing output column: end offsets and bytes.
struct TextChunk {
    ends: Vec<i64>,
    data: Vec<u8>,
    missing: Vec<usize>,
}

/// A byte buffer as a [`std::fmt::Write`] target: text written straight
/// into a column's bytes, without a String per value.
pub struct BytesWriter<'a>(pub &'a mut Vec<u8>);

impl std::fmt::Write for BytesWriter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Writes one text value per item: `f(i, out)` appends item `i`'s bytes and
/// returns whether it is present. Only items present under `presence` are
/// visited (the others stay empty and missing). Runs in parallel chunks for
/// large `n`.
pub fn text_map(
    n: usize,
    presence: Option<&NullBuffer>,
    bytes_hint: usize,
    f: impl Fn(usize, &mut Vec<u8>) -> bool + Sync,
) -> (VarBinary, Option<NullBuffer>) {
    let run = |r: Range<usize>, hint: usize| {
        let mut chunk = TextChunk { ends: Vec::with_capacity(r.len()), data: Vec::with_capacity(hint), missing: Vec::new() };
        for i in r {
            if presence.is_none_or(|p| p.is_valid(i)) && !f(i, &mut chunk.data) {
                chunk.missing.push(i);
            }
            chunk.ends.push(chunk.data.len() as i64);
        }
        chunk
    };
    let chunks: Vec<TextChunk> = if n >= PARALLEL_MIN {
        let tasks = n.div_ceil(TEXT_CHUNK);
        let hint = bytes_hint / tasks.max(1) + 16;
        parallel::install(|| (0..tasks).into_par_iter().map(|k| run(k * TEXT_CHUNK..((k + 1) * TEXT_CHUNK).min(n), hint)).collect())
    } else {
        vec![run(0..n, bytes_hint)]
    };
    join_chunks(n, presence, chunks)
}

/// Concatenates the chunks of [`text_map`].
fn join_chunks(n: usize, presence: Option<&NullBuffer>, mut chunks: Vec<TextChunk>) -> (VarBinary, Option<NullBuffer>) {
    let missing: Vec<usize> = chunks.iter_mut().flat_map(|c| std::mem::take(&mut c.missing)).collect();
    let (offsets, data) = if chunks.len() == 1 {
        let chunk = chunks.pop().expect("one chunk");
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        offsets.extend_from_slice(&chunk.ends);
        (offsets, chunk.data)
    } else {
        let total: usize = chunks.iter().map(|c| c.data.len()).sum();
        let mut offsets: Vec<i64> = crate::alloc::output_vec(n + 1);
        let mut data: Vec<u8> = crate::alloc::output_vec(total);
        offsets.push(0);
        for c in &chunks {
            let base = data.len() as i64;
            offsets.extend(c.ends.iter().map(|e| e + base));
            data.extend_from_slice(&c.data);
        }
        (offsets, data)
    };
    let values = VarBinary { offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)), data: Buffer::from_vec(data) };
    (values, with_missing(n, presence, &missing))
}

/// `presence` with the items of `missing` cleared.
fn with_missing(n: usize, presence: Option<&NullBuffer>, missing: &[usize]) -> Option<NullBuffer> {
    if missing.is_empty() {
        return presence.cloned();
    }
    let mut bits = arrow_buffer::BooleanBufferBuilder::new(n);
    match presence {
        Some(p) => bits.append_buffer(p.inner()),
        None => bits.append_n(n, true),
    }
    for &i in missing {
        bits.set_bit(i, false);
    }
    Some(NullBuffer::new(bits.finish()))
}
