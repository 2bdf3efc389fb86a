//! Benchmark and check driver: for each workload, draw its inputs, run the
//! backend once, check the output against the backend's independent
//! reference, time it, and compare the time with the floor of SPEC.md.
//!
//! References ([`Backend::reference`]): a CUDA run is checked against the
//! CPU backend (computed independently of any GPU code) up to
//! [`CPU_REF_MAX_PAIRS`] visible pairs, else the GPU's plain fp32 reference
//! kernel; a CPU run against the naive CPU reference (SPEC.md written out
//! row by row) up to [`NAIVE_MAX_PAIRS`], above which its rows say
//! `reference` (the CPU backend is the reference: only scanned for NaN).

use crate::backend::{Backend, Peaks, Reference};
use crate::error::Result;
use crate::workload::{self, Workload, DEFAULT_SEED};
use pagedattn::check::{compare, CheckReport};
use pagedattn::Output;
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
/// Visible pairs up to which a CPU run is checked against the naive CPU
/// reference (every seed workload and up to `scale_single_2048`; about 6 s
/// of one core per million pairs).
pub const NAIVE_MAX_PAIRS: u64 = 4_000_000;
/// Seconds of CPU timing per workload; fewer repeats when one call is slower
/// (unless `--reps`/`--warmup` are given).
pub const CPU_BUDGET_S: f64 = 4.0;

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
    /// Computed by the reference itself (CPU backend, too large for the naive
    /// reference): only scanned for NaN.
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
    /// Check and time, or check only.
    pub mode: Mode,
    /// Seed of the inputs ([`DEFAULT_SEED`]).
    pub seed: u64,
    /// Untimed calls before timing; `None`: the backend's default.
    pub warmup: Option<usize>,
    /// Timed calls (at least 1); `None`: the backend's default.
    pub reps: Option<usize>,
    /// CPU backend: skip workloads with more visible pairs.
    pub max_cpu_pairs: u64,
    /// CUDA backend: check against the CPU up to this many pairs.
    pub cpu_ref_max_pairs: u64,
    /// CPU backend: check against the naive reference up to this many pairs.
    pub naive_max_pairs: u64,
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
            naive_max_pairs: NAIVE_MAX_PAIRS,
            cpu_budget_s: CPU_BUDGET_S,
            check: true,
        }
    }
}

/// One workload's result.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// The workload.
    pub name: String,
    /// Its query tokens.
    pub total_q: usize,
    /// Its sequences.
    pub batch: usize,
    /// Its pages.
    pub num_pages: usize,
    /// Its keys.
    pub num_kv_indices: usize,
    /// Visible query-key pairs.
    pub pairs: u64,
    /// FLOPs by SPEC.md.
    pub flops: f64,
    /// Compulsory bytes by SPEC.md.
    pub bytes: f64,
    /// The outcome.
    pub status: Status,
    /// Why a row is skipped, failed or not compared, in words.
    pub note: Option<String>,
    /// What the output was compared with: `cpu`, `cuda-fp32` or `naive`.
    pub reference: Option<String>,
    /// How the call launched (CUDA: tile configuration and entry point,
    /// e.g. `m128 host plan`, `m64 direct`).
    pub launch: Option<String>,
    /// The comparison.
    pub check: Option<CheckReport>,
    /// FNV-1a (64-bit) of the output's bits, `out` (bf16) then `lse` (f32),
    /// little-endian, as 16 hex digits. Equal inputs (same workload and
    /// `--seed`) with equal digests mean bitwise-equal outputs, so two builds
    /// or kernels can be compared without the outputs.
    pub output_digest: Option<String>,
    /// Median per-call time, microseconds.
    pub time_us: Option<f64>,
    /// Fastest call, microseconds.
    pub time_min_us: Option<f64>,
    /// Untimed calls before timing.
    pub warmup: usize,
    /// Timed calls.
    pub reps: usize,
    /// `max(flops / matmul_peak, bytes / copy_bw)`, microseconds.
    pub floor_us: f64,
    /// `compute` or `memory`: which term of the floor is larger.
    pub bound: &'static str,
    /// `floor_us / time_us`: 1.0 would be at the floor.
    pub floor_fraction: Option<f64>,
    /// Achieved TFLOP/s.
    pub tflops: Option<f64>,
    /// Achieved GB/s of compulsory bytes.
    pub gbps: Option<f64>,
}

/// A whole run, as written by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// UTC, RFC 3339.
    pub date: String,
    /// Commit of the source tree, when known (`PAGEDATTN_GIT_COMMIT` or git).
    pub commit: Option<String>,
    /// What ran it.
    pub device: String,
    /// `cpu` or `cuda`.
    pub backend: String,
    /// Bench or check.
    pub mode: Mode,
    /// Seed of the inputs.
    pub seed: u64,
    /// Ceilings of the floor.
    pub peaks: Peaks,
    /// One per workload.
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
    Begin {
        /// What runs it.
        device: &'a str,
        /// Ceilings of the floor.
        peaks: &'a Peaks,
    },
    /// Starting workload `index` (0-based).
    Start {
        /// Its position.
        index: usize,
        /// The workload.
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
    backend: &dyn Backend,
    workloads: &[Workload],
    opts: &Options,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<BenchReport> {
    let peaks = backend.peaks()?;
    let device = backend.device();
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
        backend: backend.name().to_string(),
        mode: opts.mode,
        seed: opts.seed,
        peaks,
        rows,
    })
}

fn run_one(
    backend: &dyn Backend,
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
        launch: None,
        check: None,
        output_digest: None,
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
    if let Some(why) = backend.skip(pairs, opts) {
        row.status = Status::Skipped;
        row.note = Some(why);
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
    backend: &dyn Backend,
    w: &Workload,
    opts: &Options,
    row: &mut BenchRow,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<()> {
    progress(Progress::Phase("inputs"));
    // A call whose buffers cannot fit is refused before they are allocated.
    workload::check_host_memory(&w.dims())?;
    let inputs = w.inputs(opts.seed);
    let problem = inputs.problem();
    progress(Progress::Phase("run"));
    let mut prepared = backend.prepare(&problem)?;
    row.launch = prepared.launch();
    let t0 = Instant::now();
    let out = prepared.run()?;
    let first_call_s = t0.elapsed().as_secs_f64();
    row.output_digest = Some(output_digest(&out));

    if opts.check || opts.mode == Mode::Check {
        progress(Progress::Phase("reference"));
        match backend.reference(&problem, row.pairs, opts)? {
            Reference::Output { output, name } => {
                let rep = compare(&out, &output);
                row.status = if rep.ok() { Status::Ok } else { Status::Fail };
                if !rep.ok() {
                    row.note = Some(describe_failure(&rep));
                }
                row.reference = Some(name.to_string());
                row.check = Some(rep);
            }
            Reference::Unavailable(why) => {
                // Only a NaN scan is possible.
                let rep = compare(&out, &out);
                row.status = if rep.ok() {
                    Status::Reference
                } else {
                    Status::Fail
                };
                row.note = Some(if rep.ok() {
                    why
                } else {
                    format!("{} NaN in the output ({why})", rep.nans)
                });
            }
        }
    } else {
        row.status = Status::Unchecked;
    }
    drop(out);
    if opts.mode == Mode::Check {
        return Ok(());
    }

    let (warmup, reps) = backend.repeats(opts, first_call_s);
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

/// [`BenchRow::output_digest`] of `o`.
pub fn output_digest(o: &Output) -> String {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    for x in &o.out {
        h.write(&x.to_bits().to_le_bytes());
    }
    for x in &o.lse {
        h.write(&x.to_bits().to_le_bytes());
    }
    format!("{:016x}", h.finish())
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
        use crate::backend::{CpuBench, CPU_REPS, CPU_WARMUP};
        let o = Options::default();
        let cpu = CpuBench::new();
        assert_eq!(cpu.repeats(&o, 0.01), (CPU_WARMUP, CPU_REPS));
        assert_eq!(cpu.repeats(&o, 1.5), (0, 2));
        assert_eq!(cpu.repeats(&o, 100.0), (0, 1));
        let forced = Options {
            reps: Some(7),
            warmup: Some(2),
            ..o
        };
        assert_eq!(cpu.repeats(&forced, 100.0), (2, 7));
    }
}
