//! `pagedattn`: benchmark and check the paged GQA prefill attention backends.
//!
//! `pagedattn` alone is `pagedattn bench` on the embedded seed and scale sets
//! with the CUDA backend when a Hopper GPU is there, else the CPU backend.
//! Run `pagedattn --help` for the commands.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
