// Listing a host of thousands of sessions makes and frees millions of small strings (rows
// read back from the rows cache, JSON written): mimalloc's per-thread free lists do that work
// in a fraction of glibc malloc's time (issue 31, warm). Built with transparent huge pages,
// which only `list`, `check` and `metrics` keep (`cli::huge_pages`).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // First thing: from here on, pages stay small unless the command allows huge ones.
    clawtop::cli::huge_pages(false);
    // Before anything is written: a file-size limit is a write error, never a kill.
    clawtop::commit::ignore_file_size_signal();
    let code = clawtop::cli::main();
    // A worker thread may still hold the demo host (exit runs no destructors).
    clawtop::store::demo::remove_leftovers();
    clawtop::sqlite::open::remove_copies();
    std::process::exit(code);
}
