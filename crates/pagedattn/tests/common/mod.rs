//! Harness shared by the GPU test files: one backend per test binary, kernel
//! options from the environment, and one printed seed per run.
//!
//! The GPU tests are `#[ignore]`d, so that `cargo test` on a machine without
//! a GPU reports them as ignored (not as passed); the GPU machine runs them
//! with `--ignored` (`scripts/device-run.sh tests reliability`). Run there, a
//! test fails with the reason when the GPU cannot be used.

#![allow(dead_code)] // each test binary uses its own part

use std::sync::OnceLock;

use pagedattn::{CudaBackend, Options, SplitPolicy, TileConfig};

/// Kernel options from the environment of the test run (the library reads
/// none): `PAGEDATTN_TILE=m64|m128|m128d|m128dv|m192` (`TileConfig::name`) forces a tile configuration,
/// `PAGEDATTN_SPLIT=auto|never|N` the split policy,
/// `PAGEDATTN_ATTENTION_CUBIN=path` loads a variant cubin,
/// `PAGEDATTN_PERSISTENT=0` launches one CTA per work unit.
pub fn options_from_env() -> Options {
    // Unset or not a configuration's name: the automatic choice.
    let tile = std::env::var("PAGEDATTN_TILE")
        .ok()
        .and_then(|v| TileConfig::ALL.into_iter().find(|c| c.name() == v));
    let split = match std::env::var("PAGEDATTN_SPLIT").as_deref() {
        Ok("never") => SplitPolicy::Never,
        Ok(n) => n.parse().map(SplitPolicy::Blocks).unwrap_or_default(),
        Err(_) => SplitPolicy::Auto,
    };
    let attention_cubin = std::env::var_os("PAGEDATTN_ATTENTION_CUBIN")
        .filter(|p| !p.is_empty())
        .map(|path| {
            std::fs::read(&path).unwrap_or_else(|e| {
                panic!("PAGEDATTN_ATTENTION_CUBIN={}: {e}", path.to_string_lossy())
            })
        });
    Options {
        tile,
        split,
        attention_cubin,
        one_cta_per_unit: std::env::var("PAGEDATTN_PERSISTENT").as_deref() == Ok("0"),
    }
}

/// The CUDA backend with [`options_from_env`], or why there is none.
pub fn backend() -> Result<&'static CudaBackend, String> {
    static B: OnceLock<Result<CudaBackend, String>> = OnceLock::new();
    B.get_or_init(|| CudaBackend::with_options(options_from_env()).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

/// The backend for a GPU test, or the test fails saying why: GPU tests are
/// `#[ignore]`d, and run only where a Hopper GPU is expected.
#[macro_export]
macro_rules! gpu {
    ($name:literal) => {
        match common::backend() {
            Ok(b) => b,
            Err(e) => panic!(
                "{}: this GPU test needs a Hopper GPU and the kernels: {e}",
                $name
            ),
        }
    };
}

/// The former name of [`gpu!`], for tests written against it.
#[macro_export]
macro_rules! gpu_or_skip {
    ($name:literal) => {
        gpu!($name)
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
