//! A global allocator that keeps a few recently freed large blocks for reuse.
//!
//! Why: an operator on 10M items writes a fresh 40 MB output. The C allocator
//! gives such blocks back to the kernel on free (they are mmapped), so the next
//! operator's output starts as untouched pages and the page faults (and the
//! kernel zeroing each page) cost more than the loop that fills the buffer.
//! Keeping the last freed blocks of each size turns the common pattern — a
//! pipeline or a loop of operators over same-sized columns — into plain
//! memory writes.
//!
//! Small allocations come from mimalloc ([`SMALL`]), not the C library's
//! allocator: plait's bags hold many small objects (a store per attribute
//! name, each with its hash maps), and in a process where another library
//! has built and holds large data (koladata beside plait, in the
//! benchmarks), glibc's malloc and free of such objects were measured 3x
//! slower than in a fresh process (the repr of a schema of 4,000
//! attributes: 29 ms against 9); mimalloc's per-thread pages keep them fast
//! and close together. Large blocks stay with the C library ([`System`]):
//! a request past what the machine can hold fails there at once, as a
//! checked allocation expects, where mimalloc reserves it and the process
//! is killed when the pages are touched.
//!
//! Blocks of at least
//! [`LARGE_MIN`] bytes are rounded up to whole huge pages (so outputs of similar
//! length share blocks) and, when freed, kept in a small table bounded by a
//! byte limit (`PLAIT_BUFFER_CACHE_MB`, see [`set_limit`]); the oldest block is
//! returned to the system when the table is full.

use std::alloc::{GlobalAlloc, Layout, System};

use mimalloc::MiMalloc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The allocator of small blocks (see the module docs); large ones come
/// from [`System`].
pub const SMALL: MiMalloc = MiMalloc;

/// Blocks of at least this many bytes are cached.
pub const LARGE_MIN: usize = 4 << 20;
/// Large blocks are sized in multiples of this (a huge page).
const GRANULE: usize = 2 << 20;
/// Most blocks kept at once.
const SLOTS: usize = 16;
/// Default bound on the bytes kept (overridable with [`set_limit`]).
pub const DEFAULT_LIMIT: usize = 512 << 20;

static LIMIT: AtomicUsize = AtomicUsize::new(DEFAULT_LIMIT);
static CACHE: Mutex<Cache> = Mutex::new(Cache::new());

/// Sets the most bytes of freed large blocks kept for reuse (0 disables the
/// cache); blocks beyond the new limit are released at once.
pub fn set_limit(bytes: usize) {
    LIMIT.store(bytes, Ordering::Relaxed);
    lock().shrink_to(bytes);
}

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    // Nothing panics while the lock is held, but never let a poisoned lock
    // turn an allocation into a panic.
    CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Makes `fork()` safe for the block table: the forking thread takes the
/// table's lock just before the fork and releases it after, in the parent and
/// in the child, so a child never starts with the lock held by a thread it
/// does not have (its first large allocation would wait forever). Registered
/// once, by the program that installs the allocator; later calls do nothing.
#[cfg(target_os = "linux")]
pub fn install_fork_handlers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: the handlers are plain functions living as long as the program.
        unsafe { libc::pthread_atfork(Some(fork_prepare), Some(fork_release), Some(fork_release)) };
    });
}

#[cfg(not(target_os = "linux"))]
pub fn install_fork_handlers() {}

#[cfg(target_os = "linux")]
thread_local! {
    /// The table's lock, held by the forking thread across `fork()`.
    static HELD_FOR_FORK: std::cell::RefCell<Option<std::sync::MutexGuard<'static, Cache>>> = const { std::cell::RefCell::new(None) };
}

#[cfg(target_os = "linux")]
extern "C" fn fork_prepare() {
    let guard = lock();
    HELD_FOR_FORK.with(|held| *held.borrow_mut() = Some(guard));
}

#[cfg(target_os = "linux")]
extern "C" fn fork_release() {
    // The child's only thread is a copy of the forking one, guard included.
    let guard = HELD_FOR_FORK.with(|held| held.borrow_mut().take());
    drop(guard);
}

/// The global allocator: [`SMALL`] for small blocks, [`System`] plus the
/// large-block table for large ones.
pub struct BufferCachingAllocator;

/// The size a large request is served with (whole huge pages).
fn block_size(size: usize) -> usize {
    size.div_ceil(GRANULE) * GRANULE
}

fn is_large(size: usize) -> bool {
    size >= LARGE_MIN
}

// SAFETY: a small block comes from `SMALL` with the layout asked for and
// goes back there; a large one is either fresh from `System` with the
// rounded layout or a block of exactly that rounded size and a sufficient
// alignment taken out of the table (which owns it exclusively). Each
// method's `# Safety` contract is `GlobalAlloc`'s.
unsafe impl GlobalAlloc for BufferCachingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !is_large(layout.size()) {
            // SAFETY: our caller keeps `alloc`'s contract (a non-zero size),
            // which is `SMALL.alloc`'s.
            return unsafe { SMALL.alloc(layout) };
        }
        let size = block_size(layout.size());
        if let Some(block) = lock().take(size, layout.align()) {
            return block;
        }
        // Rounding may take a (hopeless) request past `isize::MAX`: it fails.
        let Ok(rounded) = Layout::from_size_align(size, layout.align()) else { return std::ptr::null_mut() };
        // SAFETY: a valid layout of non-zero size (`size >= LARGE_MIN`).
        unsafe { System.alloc(rounded) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !is_large(layout.size()) {
            // SAFETY: as in `alloc`.
            return unsafe { SMALL.alloc_zeroed(layout) };
        }
        let size = block_size(layout.size());
        if let Some(block) = lock().take(size, layout.align()) {
            // SAFETY: the table owned the block, of `size >= layout.size()`
            // bytes, and handed it over: nobody else reads or writes it.
            unsafe { block.write_bytes(0, layout.size()) };
            return block;
        }
        let Ok(rounded) = Layout::from_size_align(size, layout.align()) else { return std::ptr::null_mut() };
        // SAFETY: a valid layout of non-zero size (`size >= LARGE_MIN`).
        unsafe { System.alloc_zeroed(rounded) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !is_large(layout.size()) {
            // SAFETY: a small block came from `SMALL.alloc` with this very
            // layout (small requests are passed through unchanged).
            return unsafe { SMALL.dealloc(ptr, layout) };
        }
        let size = block_size(layout.size());
        let block = Block { addr: ptr as usize, size, align: layout.align(), stamp: 0 };
        if let Some(rejected) = lock().put(block, LIMIT.load(Ordering::Relaxed)) {
            // SAFETY: the caller gave the block up (`dealloc`'s contract) and
            // the table did not keep it: see `Block::release`.
            unsafe { rejected.release() };
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !is_large(layout.size()) && !is_large(new_size) {
            // SAFETY: a small block came from `SMALL` with `layout`; the new
            // size is non-zero (`realloc`'s contract).
            return unsafe { SMALL.realloc(ptr, layout, new_size) };
        }
        if is_large(layout.size()) != is_large(new_size) {
            // From one allocator to the other: a new block, the bytes both
            // hold copied, the old block given back.
            let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else { return std::ptr::null_mut() };
            // SAFETY: a valid layout of non-zero size (`realloc`'s contract).
            let new = unsafe { self.alloc(new_layout) };
            if !new.is_null() {
                // SAFETY: both blocks hold at least the bytes copied and do
                // not overlap (`new` is fresh); `ptr` is given back with the
                // layout it was allocated with, and not used afterwards.
                unsafe {
                    std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
            }
            return new;
        }
        // Both large.
        let (old_size, new_block_size) = (block_size(layout.size()), block_size(new_size));
        if old_size == new_block_size {
            return ptr;
        }
        // The system allocator grows or shrinks in place where it can (mremap
        // for mapped blocks), which beats any copy through the table.
        if Layout::from_size_align(new_block_size, layout.align()).is_err() {
            return std::ptr::null_mut(); // rounded past `isize::MAX`: fails, `ptr` untouched
        }
        // SAFETY: `ptr` is a block `System` allocated with `old_size` bytes
        // (large blocks are always allocated rounded, with a layout that was
        // valid then, and only blocks of the same rounded size are handed
        // out again) at an alignment `ptr` satisfies (see `Block::release`
        // for the alignment recorded); `new_block_size` is non-zero
        // (`realloc`'s contract, rounded up) and valid with that alignment
        // (checked just above).
        unsafe { System.realloc(ptr, Layout::from_size_align_unchecked(old_size, layout.align()), new_block_size) }
    }
}

#[derive(Clone, Copy)]
struct Block {
    addr: usize,
    size: usize,
    align: usize,
    /// When the block was freed (larger = more recent); evictions take the oldest.
    stamp: u64,
}

impl Block {
    const EMPTY: Block = Block { addr: 0, size: 0, align: 0, stamp: 0 };

    /// Returns the block to the system allocator.
    ///
    /// # Safety
    /// The block must be one `System` allocated (`addr`, `size` bytes), owned
    /// by the caller and not used afterwards. `align` is the alignment of the
    /// last request it served, which may be smaller than the one it was
    /// allocated with (a block is handed out again to any request it is
    /// aligned enough for): `System.dealloc` on the platforms plait builds
    /// for (`free`) does not depend on the alignment.
    unsafe fn release(self) {
        // SAFETY: this function's contract.
        unsafe { System.dealloc(self.addr as *mut u8, Layout::from_size_align_unchecked(self.size, self.align)) }
    }
}

struct Cache {
    blocks: [Block; SLOTS],
    total: usize,
    clock: u64,
}

impl Cache {
    const fn new() -> Cache {
        Cache { blocks: [Block::EMPTY; SLOTS], total: 0, clock: 0 }
    }

    /// Removes and returns a kept block of exactly `size` bytes aligned to `align`.
    fn take(&mut self, size: usize, align: usize) -> Option<*mut u8> {
        let slot =
            self.blocks.iter().enumerate().filter(|(_, b)| b.size == size && b.addr % align == 0).max_by_key(|(_, b)| b.stamp).map(|(k, _)| k)?;
        let block = std::mem::replace(&mut self.blocks[slot], Block::EMPTY);
        self.total -= block.size;
        Some(block.addr as *mut u8)
    }

    /// Keeps `block`, releasing the oldest blocks to stay within `limit`;
    /// returns the block itself when it cannot be kept (the caller releases it).
    fn put(&mut self, mut block: Block, limit: usize) -> Option<Block> {
        if block.size > limit {
            return Some(block);
        }
        self.shrink_to(limit - block.size);
        let free_slot = match self.blocks.iter().position(|b| b.size == 0) {
            Some(k) => k,
            None => {
                let oldest = self.oldest_slot().expect("a full table has blocks");
                self.evict(oldest);
                oldest
            }
        };
        self.clock += 1;
        block.stamp = self.clock;
        self.total += block.size;
        self.blocks[free_slot] = block;
        None
    }

    /// Releases the oldest blocks until at most `limit` bytes are kept.
    fn shrink_to(&mut self, limit: usize) {
        while self.total > limit {
            let oldest = self.oldest_slot().expect("a positive total has blocks");
            self.evict(oldest);
        }
    }

    fn oldest_slot(&self) -> Option<usize> {
        self.blocks.iter().enumerate().filter(|(_, b)| b.size > 0).min_by_key(|(_, b)| b.stamp).map(|(k, _)| k)
    }

    fn evict(&mut self, slot: usize) {
        let block = std::mem::replace(&mut self.blocks[slot], Block::EMPTY);
        self.total -= block.size;
        // SAFETY: the table owned the block; it is now out of the table.
        unsafe { block.release() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh(size: usize) -> Block {
        let layout = Layout::from_size_align(size, 64).unwrap();
        // SAFETY: a non-zero size.
        let addr = unsafe { System.alloc(layout) } as usize;
        assert_ne!(addr, 0);
        Block { addr, size, align: 64, stamp: 0 }
    }

    #[test]
    fn rounds_large_sizes_to_huge_pages() {
        assert_eq!(block_size(LARGE_MIN), LARGE_MIN);
        assert_eq!(block_size(LARGE_MIN + 1), LARGE_MIN + GRANULE);
        assert_eq!(block_size(40_000_000), 20 * GRANULE);
    }

    #[test]
    fn a_freed_block_is_handed_out_again_for_the_same_size_only() {
        let mut cache = Cache::new();
        let block = fresh(2 * GRANULE);
        assert!(cache.put(block, 64 * GRANULE).is_none());
        assert_eq!(cache.total, 2 * GRANULE);
        assert_eq!(cache.take(3 * GRANULE, 64), None);
        assert_eq!(cache.take(2 * GRANULE, 64), Some(block.addr as *mut u8));
        assert_eq!(cache.total, 0);
        assert_eq!(cache.take(2 * GRANULE, 64), None);
        // SAFETY: `fresh` allocated it; the table gave it back and keeps nothing.
        unsafe { block.release() };
    }

    #[test]
    fn the_oldest_blocks_go_when_the_limit_or_the_table_is_full() {
        let mut cache = Cache::new();
        let first = fresh(2 * GRANULE);
        let second = fresh(3 * GRANULE);
        cache.put(first, 5 * GRANULE);
        cache.put(second, 5 * GRANULE);
        assert_eq!(cache.total, 5 * GRANULE);
        let third = fresh(2 * GRANULE);
        cache.put(third, 5 * GRANULE); // the first block is released
        assert_eq!(cache.total, 5 * GRANULE);
        assert_eq!(cache.take(2 * GRANULE, 64), Some(third.addr as *mut u8));
        for _ in 0..SLOTS + 3 {
            cache.put(fresh(2 * GRANULE), usize::MAX);
        }
        assert_eq!(cache.blocks.iter().filter(|b| b.size > 0).count(), SLOTS);
        cache.shrink_to(0);
        assert_eq!(cache.total, 0);
        // SAFETY: taken out of the table above, so the test owns it again.
        unsafe { third.release() };
    }

    #[test]
    fn blocks_over_the_limit_are_not_kept() {
        let mut cache = Cache::new();
        let block = fresh(4 * GRANULE);
        let rejected = cache.put(block, 2 * GRANULE).expect("too large to keep");
        assert_eq!(cache.total, 0);
        // SAFETY: the table refused the block: the test owns it again.
        unsafe { rejected.release() };
    }
}
