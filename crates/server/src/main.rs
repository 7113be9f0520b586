// mimalloc, not glibc's malloc: a request makes and drops many small buffers on whichever worker
// thread runs it, and glibc's arenas spent ~15% of a cached read's CPU on that (perf, BENCHMARKS.md).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    subscriber_server::cli::main()
}
