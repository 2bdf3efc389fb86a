//! Harness shared by the GPU test files: one backend per test binary (or a
//! skip message when there is no Hopper GPU), and one printed seed per run.
//!
//! Skip messages are written straight to the process's stderr, not through
//! `println!`, which the test harness captures and hides for passing tests:
//! a skipped GPU test must say so in the output of `cargo test`.

use std::sync::OnceLock;

use pagedattn::backend::cuda::CudaBackend;

/// The CUDA backend, or `None` (with a message) when no Hopper GPU is usable.
pub fn backend() -> Option<&'static CudaBackend> {
    static B: OnceLock<Option<CudaBackend>> = OnceLock::new();
    B.get_or_init(|| match CudaBackend::new() {
        Ok(b) => Some(b),
        Err(e) => {
            say(&format!("SKIPPED: GPU tests need a Hopper GPU ({e})"));
            None
        }
    })
    .as_ref()
}

/// The backend, or prints that the test was skipped and returns from it.
#[macro_export]
macro_rules! gpu_or_skip {
    ($name:literal) => {
        match common::backend() {
            Some(b) => b,
            None => {
                common::say(&format!("SKIPPED {}: no Hopper GPU", $name));
                return;
            }
        }
    };
}

/// An unsigned integer from the environment.
pub fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// The run's seed: `PAGEDATTN_TEST_SEED` if set (to replay a run), else the
/// clock. Printed once.
pub fn run_seed() -> u64 {
    static S: OnceLock<u64> = OnceLock::new();
    *S.get_or_init(|| {
        let s = env_u64("PAGEDATTN_TEST_SEED").unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
        println!("GPU test seed: PAGEDATTN_TEST_SEED={s}");
        s
    })
}

/// Writes one line to stderr past the test harness's output capture.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
