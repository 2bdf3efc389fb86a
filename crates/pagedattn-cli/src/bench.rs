//! Benchmark and check driver: for each workload, draw its inputs, run the
//! backend once, check the output against a reference, time it, and compare
//! the time with the floor of SPEC.md.
//!
//! The reference for a CUDA run is the CPU backend ([`crate::backend::cpu::attention`],
//! computed independently of any GPU code) while the workload is small enough
//! ([`CPU_REF_MAX_PAIRS`]), else the CUDA backend's plain fp32 reference kernel.
//! A CPU run is itself the reference: its rows say `reference` and are only
//! scanned for NaN.

use crate::backend::cpu::{self, CpuBackend};
use crate::backend::cuda::CudaBackend;
use crate::backend::{Backend, Peaks};
use crate::check::{compare, CheckReport};
use crate::error::Result;
use crate::problem::Output;
use crate::workload::{Workload, DEFAULT_SEED};
use serde::Serialize;
use std::fmt;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Visible query-key pairs above which the CPU backend skips a workload unless
/// told otherwise: about 120 GFLOP, tens of seconds per call on a laptop. It
/// lets through the seed set and the 1k-4k scale cases, not the 8k-32k ones.
pub const CPU_MAX_PAIRS: u64 = 10_000_000;
/// Visible pairs up to which a CUDA run is checked against the CPU backend
/// (every seed workload; up to `scale_single_2048`); above it the CUDA fp32
/// reference kernel is used so that checking a 32k-token case takes seconds.
pub const CPU_REF_MAX_PAIRS: u64 = 4_000_000;
/// SPEC.md: at least 100 timed calls on the GPU, after warm-up.
pub const CUDA_WARMUP: usize = 10;
pub const CUDA_REPS: usize = 100;
/// The CPU is a reference, not a rival: a few calls suffice.
pub const CPU_WARMUP: usize = 1;
pub const CPU_REPS: usize = 3;
/// Seconds of CPU timing per workload; fewer repeats when one call is slower
/// (unless `--reps`/`--warmup` are given).
pub const CPU_BUDGET_S: f64 = 4.0;

/// The backend a run uses. An enum, not `dyn Backend`, because a CUDA run
/// also needs its reference kernel.
pub enum AnyBackend {
    Cpu(CpuBackend),
    Cuda(CudaBackend),
}

impl AnyBackend {
    pub fn as_backend(&self) -> &dyn Backend {
        match self {
            AnyBackend::Cpu(b) => b,
            AnyBackend::Cuda(b) => b,
        }
    }
    pub fn is_cpu(&self) -> bool {
        matches!(self, AnyBackend::Cpu(_))
    }
}

/// What to do with each workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Check, then time.
    Bench,
    /// Check only.
    Check,
}

/// Outcome of one workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Within the SPEC.md bound of the reference.
    Ok,
    /// Outside the bound, NaN, or `-inf` mismatch.
    Fail,
    /// Not run (too large for the CPU).
    Skipped,
    /// Computed by the reference itself (CPU backend): nothing to compare with.
    Reference,
    /// Ran but was not checked (`--no-check`).
    Unchecked,
    /// The backend or the reference returned an error.
    Error,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Ok => "ok",
            Status::Fail => "FAIL",
            Status::Skipped => "skipped",
            Status::Reference => "reference",
            Status::Unchecked => "unchecked",
            Status::Error => "ERROR",
        })
    }
}

/// Settings of a run; [`Options::default`] is what the CLI uses without flags.
#[derive(Clone, Debug)]
pub struct Options {
    pub mode: Mode,
    /// Seed of the inputs ([`DEFAULT_SEED`]).
    pub seed: u64,
    /// Untimed calls before timing; `None`: the backend's default.
    pub warmup: Option<usize>,
    /// Timed calls; `None`: the backend's default.
    pub reps: Option<usize>,
    /// CPU backend: skip workloads with more visible pairs.
    pub max_cpu_pairs: u64,
    /// CUDA backend: check against the CPU up to this many pairs.
    pub cpu_ref_max_pairs: u64,
    /// CPU backend: seconds of timing per workload when `reps` is `None`.
    pub cpu_budget_s: f64,
    /// Compare with the reference (bench mode; check mode always does).
    pub check: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Bench,
            seed: DEFAULT_SEED,
            warmup: None,
            reps: None,
            max_cpu_pairs: CPU_MAX_PAIRS,
            cpu_ref_max_pairs: CPU_REF_MAX_PAIRS,
            cpu_budget_s: CPU_BUDGET_S,
            check: true,
        }
    }
}

/// One workload's result.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    pub name: String,
    pub total_q: usize,
    pub batch: usize,
    pub num_pages: usize,
    pub num_kv_indices: usize,
    /// Visible query-key pairs.
    pub pairs: u64,
    pub flops: f64,
    pub bytes: f64,
    pub status: Status,
    /// Why a row is skipped or failed, in words.
    pub note: Option<String>,
    /// What the output was compared with: `cpu` or `cuda-fp32`.
    pub reference: Option<String>,
    pub check: Option<CheckReport>,
    /// Median per-call time, microseconds.
    pub time_us: Option<f64>,
    pub time_min_us: Option<f64>,
    pub warmup: usize,
    pub reps: usize,
    /// `max(flops / matmul_peak, bytes / copy_bw)`, microseconds.
    pub floor_us: f64,
    /// `compute` or `memory`: which term of the floor is larger.
    pub bound: &'static str,
    /// `floor_us / time_us`: 1.0 would be at the floor.
    pub floor_fraction: Option<f64>,
    pub tflops: Option<f64>,
    pub gbps: Option<f64>,
}

/// A whole run, as written by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// UTC, RFC 3339.
    pub date: String,
    /// Commit of the source tree, when known (`PAGEDATTN_GIT_COMMIT` or git).
    pub commit: Option<String>,
    pub device: String,
    pub backend: String,
    pub mode: Mode,
    pub seed: u64,
    pub peaks: Peaks,
    pub rows: Vec<BenchRow>,
}

impl BenchReport {
    /// Rows that failed the check or errored.
    pub fn failures(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r.status, Status::Fail | Status::Error))
            .count()
    }
}

/// What the driver is doing, for a progress display.
pub enum Progress<'a> {
    /// The run starts: where, and the peaks of its floors.
    Begin { device: &'a str, peaks: &'a Peaks },
    /// Starting workload `index` (0-based).
    Start {
        index: usize,
        workload: &'a Workload,
    },
    /// A phase of the current workload: `inputs`, `run`, `reference`, `time`.
    Phase(&'static str),
    /// A workload is finished.
    Done(&'a BenchRow),
}

/// The SPEC.md floor in microseconds and which term bounds it.
pub fn floor_us(flops: f64, bytes: f64, peaks: &Peaks) -> (f64, &'static str) {
    let compute = flops / (peaks.matmul_tflops * 1e12) * 1e6;
    let memory = bytes / (peaks.copy_gbps * 1e9) * 1e6;
    if compute >= memory {
        (compute, "compute")
    } else {
        (memory, "memory")
    }
}

/// Median of a non-empty sample (mean of the two middle values when even).
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Runs every workload; per-workload failures become rows, not errors. The
/// only error is a backend that cannot report its peaks.
pub fn run(
    backend: &AnyBackend,
    workloads: &[Workload],
    opts: &Options,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<BenchReport> {
    let b = backend.as_backend();
    let peaks = b.peaks()?;
    let device = b.device();
    progress(Progress::Begin {
        device: &device,
        peaks: &peaks,
    });
    let mut rows = Vec::with_capacity(workloads.len());
    for (index, w) in workloads.iter().enumerate() {
        progress(Progress::Start { index, workload: w });
        let row = run_one(backend, w, opts, &peaks, progress);
        progress(Progress::Done(&row));
        rows.push(row);
    }
    Ok(BenchReport {
        date: utc_now(),
        commit: git_commit(),
        device,
        backend: b.name().to_string(),
        mode: opts.mode,
        seed: opts.seed,
        peaks,
        rows,
    })
}

fn run_one(
    backend: &AnyBackend,
    w: &Workload,
    opts: &Options,
    peaks: &Peaks,
    progress: &mut dyn FnMut(Progress<'_>),
) -> BenchRow {
    let pairs = w.visible_pairs();
    let (flops, bytes) = (w.flops(), w.bytes());
    let (floor, bound) = floor_us(flops, bytes, peaks);
    let mut row = BenchRow {
        name: w.name.clone(),
        total_q: w.total_q,
        batch: w.batch(),
        num_pages: w.num_pages,
        num_kv_indices: w.kv_indices.len(),
        pairs,
        flops,
        bytes,
        status: Status::Error,
        note: None,
        reference: None,
        check: None,
        time_us: None,
        time_min_us: None,
        warmup: 0,
        reps: 0,
        floor_us: floor,
        bound,
        floor_fraction: None,
        tflops: None,
        gbps: None,
    };
    if backend.is_cpu() && pairs > opts.max_cpu_pairs {
        row.status = Status::Skipped;
        row.note = Some(format!(
            "skipped (too large for cpu: {pairs} pairs > {}; --max-cpu-pairs N to force)",
            opts.max_cpu_pairs
        ));
        return row;
    }
    if let Err(e) = check_and_time(backend, w, opts, &mut row, progress) {
        row.status = Status::Error;
        row.note = Some(e.to_string());
    }
    row
}

/// Fills the check and timing fields of `row`; an `Err` is a backend error.
fn check_and_time(
    backend: &AnyBackend,
    w: &Workload,
    opts: &Options,
    row: &mut BenchRow,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    progress(Progress::Phase("inputs"));
    let inputs = w.inputs(opts.seed);
    let problem = inputs.problem();
    let b = backend.as_backend();
    progress(Progress::Phase("run"));
    let mut prepared = b.prepare(&problem)?;
    let t0 = Instant::now();
    let out = prepared.run()?;
    let first_call_s = t0.elapsed().as_secs_f64();

    let must_check = opts.check || opts.mode == Mode::Check;
    match backend {
        AnyBackend::Cpu(_) => {
            // The CPU is the reference: only look for NaN.
            let rep = compare(&out, &out);
            row.status = if rep.ok() {
                Status::Reference
            } else {
                Status::Fail
            };
            if !rep.ok() {
                row.note = Some(format!("{} NaN in the cpu output", rep.nans));
            }
        }
        AnyBackend::Cuda(cuda) if must_check => {
            progress(Progress::Phase("reference"));
            let (reference, name): (Output, &str) = if row.pairs <= opts.cpu_ref_max_pairs {
                (cpu::attention(&problem)?, "cpu")
            } else {
                (cuda.reference(&problem)?, "cuda-fp32")
            };
            let rep = compare(&out, &reference);
            row.status = if rep.ok() { Status::Ok } else { Status::Fail };
            if !rep.ok() {
                row.note = Some(describe_failure(&rep));
            }
            row.reference = Some(name.to_string());
            row.check = Some(rep);
        }
        AnyBackend::Cuda(_) => row.status = Status::Unchecked,
    }
    drop(out);
    if opts.mode == Mode::Check {
        return Ok(());
    }

    let (warmup, reps) = repeats(backend.is_cpu(), opts, first_call_s);
    if reps == 0 {
        return Ok(());
    }
    progress(Progress::Phase("time"));
    let times = prepared.time(warmup, reps)?;
    row.warmup = warmup;
    row.reps = times.len();
    row.time_us = median(&times);
    row.time_min_us = times.iter().copied().reduce(f64::min);
    if let Some(t) = row.time_us.filter(|&t| t > 0.0) {
        row.floor_fraction = Some(row.floor_us / t);
        row.tflops = Some(row.flops / t / 1e6);
        row.gbps = Some(row.bytes / t / 1e3);
    }
    Ok(())
}

/// Warm-up and timed calls: the flags when given, else the backend's
/// defaults, cut down for the CPU so one workload takes about
/// `cpu_budget_s` (the first, checked call already warmed it up).
fn repeats(is_cpu: bool, opts: &Options, first_call_s: f64) -> (usize, usize) {
    if !is_cpu {
        return (
            opts.warmup.unwrap_or(CUDA_WARMUP),
            opts.reps.unwrap_or(CUDA_REPS),
        );
    }
    let mut warmup = opts.warmup.unwrap_or(CPU_WARMUP);
    let reps = match opts.reps {
        Some(r) => r,
        None => {
            let fits = (opts.cpu_budget_s / first_call_s.max(1e-9)).floor() as usize;
            if (warmup + CPU_REPS) > fits && opts.warmup.is_none() {
                warmup = 0;
            }
            CPU_REPS.min(fits.saturating_sub(warmup)).max(1)
        }
    };
    (warmup, reps)
}

/// One line for a failed check.
pub fn describe_failure(r: &CheckReport) -> String {
    if r.length_mismatch {
        return "output length differs from the reference".into();
    }
    format!(
        "{} out and {} lse entries outside 1e-2 + 1e-2*|ref|, {} NaN, {} -inf mismatches",
        r.out_violations, r.lse_violations, r.nans, r.inf_mismatches
    )
}

/// The source commit, first found of: `$PAGEDATTN_GIT_COMMIT` at run time;
/// `PAGEDATTN_BUILD_COMMIT` in the environment of the build (exact for this
/// binary; set it when building for another machine); `git rev-parse` in the
/// source tree this binary was built from, which may have moved on since
/// (absent on machines that only got the binary). `-dirty` when tracked
/// files differ from that commit.
pub fn git_commit() -> Option<String> {
    if let Ok(c) = std::env::var("PAGEDATTN_GIT_COMMIT") {
        if !c.is_empty() {
            return Some(c);
        }
    }
    if let Some(c) = option_env!("PAGEDATTN_BUILD_COMMIT").filter(|c| !c.is_empty()) {
        return Some(c.to_string());
    }
    let dir = env!("CARGO_MANIFEST_DIR");
    let out = std::process::Command::new("git")
        .args(["-C", dir, "rev-parse", "--short=12", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let mut commit = String::from_utf8(out.stdout).ok()?.trim().to_string();
    let clean = std::process::Command::new("git")
        .args(["-C", dir, "diff", "--quiet", "HEAD", "--"])
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(true);
    if !clean {
        commit.push_str("-dirty");
    }
    Some(commit)
}

/// Now, UTC, as `YYYY-MM-DDTHH:MM:SSZ` (no date crate needed for one line).
pub fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    utc_from_unix(secs)
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since 1970 (Howard Hinnant's civil_from_days).
pub fn utc_from_unix(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(utc_from_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_from_unix(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_from_unix(1_796_044_496), "2026-11-30T13:14:56Z");
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }

    #[test]
    fn floors() {
        let p = Peaks::H200_DEFAULT;
        let (f, b) = floor_us(772e6, 0.0, &p);
        assert!((f - 1.0).abs() < 1e-12 && b == "compute");
        let (f, b) = floor_us(0.0, 4217e3, &p);
        assert!((f - 1.0).abs() < 1e-12 && b == "memory");
    }

    #[test]
    fn cpu_repeats_follow_budget() {
        let o = Options::default();
        assert_eq!(repeats(true, &o, 0.01), (CPU_WARMUP, CPU_REPS));
        assert_eq!(repeats(true, &o, 1.5), (0, 2));
        assert_eq!(repeats(true, &o, 100.0), (0, 1));
        assert_eq!(repeats(false, &o, 100.0), (CUDA_WARMUP, CUDA_REPS));
        let forced = Options {
            reps: Some(7),
            warmup: Some(2),
            ..o
        };
        assert_eq!(repeats(true, &forced, 100.0), (2, 7));
    }
}
