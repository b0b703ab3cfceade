fn main() {
    std::process::exit(clawtop::cli::main());
}
