fn main() {
    let code = clawtop::cli::main();
    // A worker thread may still hold the demo host (exit runs no destructors).
    clawtop::store::demo::remove_leftovers();
    std::process::exit(code);
}
