//! Allocation of large output buffers.

/// An empty vector with room for `n` items. Large buffers ask the kernel for
/// huge pages (as numpy does): writing a fresh 40 MB output otherwise spends
/// more time in page faults than in the loop that fills it.
pub fn output_vec<R>(n: usize) -> Vec<R> {
    let out: Vec<R> = Vec::with_capacity(n);
    advise_huge_pages(out.as_ptr().cast(), n * std::mem::size_of::<R>());
    out
}

/// Asks the kernel to back the whole 2 MiB pages of a fresh allocation of
/// `bytes` bytes at `start` with huge pages (only for large allocations;
/// elsewhere than Linux, nothing).
fn advise_huge_pages(start: *const u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        if bytes >= 2 * HUGE_PAGE {
            let start = start as usize;
            let aligned = (start + HUGE_PAGE - 1) & !(HUGE_PAGE - 1);
            let end = (start + bytes) & !(HUGE_PAGE - 1);
            if end > aligned {
                // SAFETY: MADV_HUGEPAGE reads and writes no memory: it
                // only changes how the pages of the range are backed (on a
                // range that is not mapped it fails and changes nothing).
                unsafe { libc::madvise(aligned as *mut libc::c_void, end - aligned, libc::MADV_HUGEPAGE) };
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}

/// Copies written per step by [`RunWriter::write`].
const RUN_BLOCK: usize = 8;

/// Writes runs of equal values into a fresh buffer (see [`fill_runs`]).
pub struct RunWriter<'a, T> {
    spare: &'a mut [std::mem::MaybeUninit<T>],
    pos: usize,
}

impl<T: Copy> RunWriter<'_, T> {
    /// Appends `count` copies of `value`.
    #[inline(always)]
    pub fn write(&mut self, value: T, count: usize) {
        // Whole blocks of RUN_BLOCK copies (a few vector stores, no per-length
        // branching); the overshoot lands in slack that the next run, or
        // nothing, overwrites.
        let value = std::mem::MaybeUninit::new(value);
        let mut k = self.pos;
        let end = self.pos + count;
        while k < end {
            self.spare[k..k + RUN_BLOCK].fill(value);
            k += RUN_BLOCK;
        }
        self.pos = end;
    }

    /// Appends `source[range]`.
    #[inline(always)]
    pub fn copy(&mut self, source: &[T], range: std::ops::Range<usize>) {
        let end = self.pos + range.len();
        if range.start + range.len().next_multiple_of(RUN_BLOCK) <= source.len() {
            // Whole blocks, as `write` (short runs, the usual ones when
            // splicing lists, cost no `memcpy` call each): the items read
            // past the run are in `source`, and the copies of them land in
            // slack that the next run, or nothing, overwrites.
            let (mut k, mut s) = (self.pos, range.start);
            while k < end {
                for (slot, &v) in self.spare[k..k + RUN_BLOCK].iter_mut().zip(&source[s..s + RUN_BLOCK]) {
                    slot.write(v);
                }
                k += RUN_BLOCK;
                s += RUN_BLOCK;
            }
        } else {
            for (slot, &v) in self.spare[self.pos..end].iter_mut().zip(&source[range]) {
                slot.write(v);
            }
        }
        self.pos = end;
    }
}

/// A vector of `n` items written as runs of equal values by `runs`, which
/// must write exactly `n` items.
pub fn fill_runs<T: Copy>(n: usize, runs: impl FnOnce(&mut RunWriter<'_, T>)) -> Vec<T> {
    let mut out: Vec<T> = output_vec(n + RUN_BLOCK);
    let mut writer = RunWriter { spare: &mut out.spare_capacity_mut()[..n + RUN_BLOCK], pos: 0 };
    runs(&mut writer);
    assert_eq!(writer.pos, n, "runs must cover the output exactly");
    // SAFETY: `RunWriter::write` writes slots `pos..pos + count` (and some
    // slack after them, bounds-checked) and moves `pos` to their end, starting
    // from 0: slots `0..pos` are initialised, and `pos == n` was asserted.
    unsafe { out.set_len(n) };
    out
}

/// Bytes per task of [`copy_bytes`].
const COPY_CHUNK: usize = 1 << 20;

/// A copy of `bytes` in a fresh Arrow buffer (aligned for any value type,
/// as Arrow's allocations are, so the copy can be read as numbers); large
/// ones are copied in chunks on the worker threads, so that the page faults
/// of the fresh memory and the copy itself are shared out (about half the
/// time of one `memcpy` of 40 MB on two cores).
pub fn copy_bytes(bytes: &[u8]) -> arrow_buffer::Buffer {
    use rayon::prelude::*;
    if bytes.len() < 4 * COPY_CHUNK {
        return arrow_buffer::Buffer::from_slice_ref(bytes);
    }
    let mut out = arrow_buffer::MutableBuffer::with_capacity(bytes.len());
    advise_huge_pages(out.as_ptr(), bytes.len());
    // SAFETY: `with_capacity` allocated at least `bytes.len()` bytes at
    // `as_mut_ptr()`, owned by `out` and not yet initialised; they are seen
    // as `MaybeUninit` slots, written below, and nothing else reads them.
    let spare = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<std::mem::MaybeUninit<u8>>(), bytes.len()) };
    crate::parallel::install(|| {
        spare.par_chunks_mut(COPY_CHUNK).zip(bytes.par_chunks(COPY_CHUNK)).for_each(|(to, from)| {
            for (slot, &b) in to.iter_mut().zip(from) {
                slot.write(b);
            }
        })
    });
    // SAFETY: the chunks of `spare` and of `bytes` pair up one to one and
    // have equal lengths, and every slot of each chunk was written: bytes
    // `0..bytes.len()` are initialised, within the capacity.
    unsafe { out.set_len(bytes.len()) };
    out.into()
}

#[cfg(test)]
mod copy_tests {
    #[test]
    fn copies_of_small_and_large_buffers_are_equal() {
        for n in [0, 1, 4 << 20, (5 << 20) + 3] {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            let copy = super::copy_bytes(&bytes);
            assert_eq!(copy.as_slice(), &bytes[..], "{n} bytes");
            // Aligned as Arrow aligns, so the copy can be read as numbers.
            assert_eq!(copy.as_ptr().align_offset(8), 0, "{n} bytes");
        }
    }
}
