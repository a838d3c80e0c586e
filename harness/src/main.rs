//! The `conformance` command line (see `conformance --help`).

fn main() {
    std::process::exit(conformance::cli::main());
}
