//! Command line: argument parsing, backend choice, workload selection.
//!
//! Errors are printed as one `error: ...` line with a non-zero exit status
//! (1: a run or input error or a failed check; 2: bad arguments, from clap),
//! never as a panic trace.

mod table;

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pagedattn::{SplitPolicy, TileConfig};
use pagedattn_cli::backend::{Backend, CpuBench, CudaBench, PlanSource, Timing};
use pagedattn_cli::bench::{self, BenchReport, Mode, Options, Progress};
use pagedattn_cli::generate;
use pagedattn_cli::workload::{self, Workload, DEFAULT_SEED};
use pagedattn_cli::Error;
use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "pagedattn",
    version,
    about = "Batched GQA causal prefill attention over a paged KV cache: benchmark and check",
    long_about = "Batched GQA causal prefill attention over a paged KV cache (24 query heads, \
                  4 kv heads, head_dim 128, page_size 1, bf16).\n\n\
                  Without a command: `bench` on the embedded seed and scale workloads, with the \
                  CUDA backend if a Hopper GPU is found, else the CPU backend.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Flags of `bench`, when no command is given.
    #[command(flatten)]
    bench: BenchArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check each workload against the reference, then time it (the default).
    Bench(BenchArgs),
    /// Check each workload against the reference and print the worst errors.
    Check(CheckArgs),
    /// List the selected workloads with their sizes, floors and the host
    /// plan's tile configuration.
    List(SelectArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BackendChoice {
    /// CUDA if a usable GPU is found, else CPU.
    Auto,
    Cpu,
    Cuda,
}

/// Which workloads.
#[derive(Args, Debug, Clone)]
struct SelectArgs {
    /// JSONL workload file (repeatable). Default: the embedded seed and scale sets.
    #[arg(long = "workloads", value_name = "FILE")]
    workloads: Vec<PathBuf>,
    /// Keep workloads whose name contains SUBSTR (repeatable: any of them).
    #[arg(long, value_name = "SUBSTR")]
    filter: Vec<String>,
    /// Add the hand-picked edge cases and N seeded random batches of
    /// `pagedattn_cli::generate` (instead of the embedded sets when no
    /// --workloads is given): empty sequences, kv_len above and below q_len,
    /// one token, shuffled and repeated pages. For sanitizer runs over the
    /// edge cases.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<0>)]
    generated: Option<u64>,
}

/// Flags shared by `bench` and `check`.
#[derive(Args, Debug, Clone)]
struct RunArgs {
    #[command(flatten)]
    select: SelectArgs,
    /// Backend to run.
    #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
    backend: BackendChoice,
    /// Seed of the random inputs.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED, allow_negative_numbers = true, value_parser = whole::<0>)]
    seed: u64,
    /// CPU backend: skip workloads with more visible query-key pairs than N.
    #[arg(long, value_name = "N", default_value_t = bench::CPU_MAX_PAIRS, allow_negative_numbers = true, value_parser = whole::<0>)]
    max_cpu_pairs: u64,
    /// CUDA backend: check against the CPU up to N visible pairs (above: the GPU fp32 reference).
    #[arg(long, value_name = "N", default_value_t = bench::CPU_REF_MAX_PAIRS, allow_negative_numbers = true, value_parser = whole::<0>)]
    cpu_ref_max_pairs: u64,
    /// CPU backend: check against the naive CPU reference up to N visible
    /// pairs (above: not compared, the row says `reference`).
    #[arg(long, value_name = "N", default_value_t = bench::NAIVE_MAX_PAIRS, allow_negative_numbers = true, value_parser = whole::<0>)]
    naive_max_pairs: u64,
    /// Write the full report as JSON to FILE (never one of the inputs).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    #[command(flatten)]
    kernel: KernelArgs,
}

/// Kernel options of the CUDA backend (`pagedattn::Options`).
#[derive(Args, Debug, Clone)]
struct KernelArgs {
    /// CUDA: tile configuration, `auto` (chosen per call from the mean
    /// query and key lengths), `m64`, `m128`, `m128d` (m128 with a 3-deep
    /// K/V ring), `m128dv` (m128 with a 3-deep V ring) or `m192` (192-row
    /// tiles, three consumer warpgroups); forced for every call.
    #[arg(long, value_enum, default_value_t = TileArg::Auto)]
    tile: TileArg,
    /// CUDA: when long tiles are split into key-range chunks merged in the
    /// kernel: `auto`, `never`, or N (chunks of at most N key blocks, N >= 1).
    #[arg(long, value_name = "auto|never|N", default_value = "auto", value_parser = split_policy)]
    split: SplitPolicy,
    /// CUDA: load this cubin (built from the same kernels/ sources, e.g. by
    /// scripts/build-variant.sh) instead of the embedded attention kernel.
    #[arg(long, value_name = "PATH")]
    attention_cubin: Option<PathBuf>,
    /// CUDA: one CTA per work unit instead of the persistent grid (kernel experiments).
    #[arg(long)]
    one_cta_per_unit: bool,
    /// CUDA: where each call's work-unit plan is made. `host`: once per
    /// workload before timing, from the indptrs on the host (FlashInfer's
    /// plan()/run() split, what its harness times). `device`: in the kernel
    /// from the indptrs in device memory (what a graph replayed with new
    /// sequence lengths runs).
    #[arg(long, value_enum, default_value_t = PlanArg::Host)]
    plan: PlanArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum PlanArg {
    Host,
    Device,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TileArg {
    Auto,
    M64,
    M128,
    /// m128 with a 3-deep K/V ring and one Q slot.
    M128d,
    /// m128 with a 3-deep V ring, a 2-deep K ring and two Q slots.
    M128dv,
    /// 192-row tiles (three consumer warpgroups), 64-key blocks, m128d's
    /// 3-deep K/V ring and one Q slot.
    M192,
}

/// A whole number of at least `MIN`, with a message that says so (instead of
/// clap's "unexpected argument '-1'" for a negative one).
fn whole<const MIN: u64>(s: &str) -> std::result::Result<u64, String> {
    match s.trim().parse::<i128>() {
        Ok(n) if n >= MIN as i128 && n <= u64::MAX as i128 => Ok(n as u64),
        Ok(0) if MIN == 1 => Err("must be at least 1: 0 would time nothing".into()),
        Ok(n) if n < MIN as i128 => Err(format!("must be at least {MIN}, got {n}")),
        _ => Err(format!("expected a whole number >= {MIN}, got `{s}`")),
    }
}

fn split_policy(s: &str) -> std::result::Result<SplitPolicy, String> {
    match s.trim() {
        "auto" => Ok(SplitPolicy::Auto),
        "never" => Ok(SplitPolicy::Never),
        n => match n.parse::<i64>() {
            Ok(n) if n >= 1 && n <= u32::MAX as i64 => Ok(SplitPolicy::Blocks(n as u32)),
            _ => Err(format!(
                "expected `auto`, `never` or a number of key blocks >= 1, got `{s}`"
            )),
        },
    }
}

fn positive_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("expected a positive number of seconds, got `{s}`")),
    }
}

impl KernelArgs {
    /// The library's kernel options (reads the cubin file).
    fn options(&self) -> Result<pagedattn::Options> {
        let attention_cubin = match &self.attention_cubin {
            Some(path) => Some(
                std::fs::read(path)
                    .map_err(|e| CliError(format!("--attention-cubin {}: {e}", path.display())))?,
            ),
            None => None,
        };
        Ok(pagedattn::Options {
            tile: match self.tile {
                TileArg::Auto => None,
                TileArg::M64 => Some(TileConfig::M64),
                TileArg::M128 => Some(TileConfig::M128),
                TileArg::M128d => Some(TileConfig::M128Deep),
                TileArg::M128dv => Some(TileConfig::M128DeepV),
                TileArg::M192 => Some(TileConfig::M192),
            },
            split: self.split,
            attention_cubin,
            one_cta_per_unit: self.one_cta_per_unit,
        })
    }
}

#[derive(Args, Debug, Clone)]
struct BenchArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Timed calls per workload, at least 1 (default: cuda 100, cpu 3 within --cpu-budget-s).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<1>)]
    reps: Option<u64>,
    /// Untimed calls before timing (default: cuda 10, cpu 1).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<0>)]
    warmup: Option<u64>,
    /// CPU backend: seconds of timing per workload when --reps is not given.
    #[arg(long, value_name = "S", default_value_t = bench::CPU_BUDGET_S, allow_negative_numbers = true, value_parser = positive_seconds)]
    cpu_budget_s: f64,
    /// Time without comparing with the reference.
    #[arg(long)]
    no_check: bool,
    /// CUDA: what to time. `graph` (SPEC.md): events around a graph replay of
    /// one unchecked call. `checked`: host wall clock of one checked call
    /// (error flag reset, launch, flag read back, synchronised). `eager`:
    /// host wall clock of one unchecked call and a synchronise (the same
    /// clock as `checked`, to read the checked mode's cost off).
    /// `graph-warm`: `graph` without the L2 flush. `graph-cold-data`: `graph`
    /// with the same call on other buffers run between the flush and the
    /// timed call, so the code (and a host plan's image) is warm and the
    /// data cold (`graph` minus it: what the cold code costs).
    #[arg(long, value_enum, default_value_t = CudaTiming::Graph)]
    cuda_timing: CudaTiming,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum CudaTiming {
    Graph,
    Checked,
    Eager,
    GraphWarm,
    GraphColdData,
}

#[derive(Args, Debug, Clone)]
struct CheckArgs {
    #[command(flatten)]
    run: RunArgs,
}

/// A message for the user: a library error or a usage problem found after parsing.
struct CliError(String);

impl From<Error> for CliError {
    fn from(e: Error) -> Self {
        CliError(e.to_string())
    }
}

impl From<pagedattn::Error> for CliError {
    fn from(e: pagedattn::Error) -> Self {
        CliError(e.to_string())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

type Result<T> = std::result::Result<T, CliError>;

/// Parses the arguments, runs, and maps every error to `error: ...`.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => bench_cmd(&cli.bench),
        Some(Command::Bench(a)) => bench_cmd(&a),
        Some(Command::Check(a)) => check_cmd(&a),
        Some(Command::List(a)) => list_cmd(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn bench_cmd(a: &BenchArgs) -> Result<ExitCode> {
    let opts = Options {
        mode: Mode::Bench,
        warmup: a.warmup.map(|n| n as usize),
        reps: a.reps.map(|n| n as usize),
        cpu_budget_s: a.cpu_budget_s,
        check: !a.no_check,
        ..run_options(&a.run)
    };
    let timing = match a.cuda_timing {
        CudaTiming::Graph => Timing::Graph,
        CudaTiming::Checked => Timing::Checked,
        CudaTiming::Eager => Timing::Eager,
        CudaTiming::GraphWarm => Timing::GraphWarm,
        CudaTiming::GraphColdData => Timing::GraphColdData,
    };
    execute(&a.run, &opts, timing)
}

fn check_cmd(a: &CheckArgs) -> Result<ExitCode> {
    let opts = Options {
        mode: Mode::Check,
        ..run_options(&a.run)
    };
    execute(&a.run, &opts, Timing::Graph)
}

fn list_cmd(a: &SelectArgs) -> Result<ExitCode> {
    let workloads = select(a)?;
    emit(&table::list(&workloads));
    Ok(ExitCode::SUCCESS)
}

fn run_options(r: &RunArgs) -> Options {
    Options {
        seed: r.seed,
        max_cpu_pairs: r.max_cpu_pairs,
        cpu_ref_max_pairs: r.cpu_ref_max_pairs,
        naive_max_pairs: r.naive_max_pairs,
        ..Options::default()
    }
}

/// Selects workloads and a backend, runs, prints, writes the JSON.
fn execute(r: &RunArgs, opts: &Options, timing: Timing) -> Result<ExitCode> {
    // Workloads first: a bad file is reported before any device work.
    let workloads = select(&r.select)?;
    // The report never replaces an input.
    if let Some(path) = &r.json {
        let inputs = r.select.workloads.iter().chain(&r.kernel.attention_cubin);
        if let Some(input) = inputs.into_iter().find(|i| same_file(path, i)) {
            return Err(CliError(format!(
                "--json {}: that is the input {}; write the report to another file",
                path.display(),
                input.display()
            )));
        }
    }
    let kernel_opts = r.kernel.options()?;
    // Open the report file now, so that a bad path fails before the run.
    let json = match &r.json {
        Some(path) => Some((
            path,
            std::fs::File::create(path)
                .map_err(|e| CliError(format!("{}: {e}", path.display())))?,
        )),
        None => None,
    };
    let plan = match r.kernel.plan {
        PlanArg::Host => PlanSource::Host,
        PlanArg::Device => PlanSource::Device,
    };
    let backend = open_backend(r.backend, kernel_opts, timing, plan)?;
    let printer = table::RowPrinter::new(opts.mode, &workloads);
    let bar = progress_bar(workloads.len());
    let report = bench::run(backend.as_ref(), &workloads, opts, &mut |p| match p {
        Progress::Begin { device, peaks } => {
            let head = table::header(opts.mode, backend.name(), device, peaks, opts.seed);
            bar.suspend(|| emit(&format!("{head}{}", printer.column_names())));
        }
        Progress::Start { index, workload } => {
            bar.set_position(index as u64);
            bar.set_message(workload.name.clone());
        }
        Progress::Phase(phase) => {
            let name = workloads
                .get(bar.position() as usize)
                .map_or("", |w| w.name.as_str());
            bar.set_message(format!("{name}: {phase}"));
        }
        Progress::Done(row) => {
            bar.inc(1);
            let line = printer.row(row);
            bar.suspend(|| emit(&line));
        }
    });
    bar.finish_and_clear();
    let report = report?;
    emit(&table::summary(&report));
    if let Some((path, file)) = json {
        write_json(path, file, &report)?;
        emit(&format!("report written to {}\n", path.display()));
    }
    Ok(if report.failures() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Seed of the first `--generated` random batch (batch i uses this + i).
const GENERATED_SEED: u64 = 0x6E_0000;

/// Loads the files (or the embedded sets) and applies the filters.
fn select(s: &SelectArgs) -> Result<Vec<Workload>> {
    let mut all = Vec::new();
    if s.workloads.is_empty() && s.generated.is_none() {
        all = workload::embedded_default()?;
    }
    if let Some(n) = s.generated {
        all.extend(generate::edge_cases());
        let spec = generate::BatchSpec {
            max_batch: 24,
            max_q_len: 300,
            max_extra_kv: 300,
            max_spare_pages: 64,
            ..Default::default()
        };
        // Fixed seeds: the same batches on every machine and every run.
        all.extend((0..n).map(|i| generate::random_batch(GENERATED_SEED + i, &spec)));
    }
    // Names key the reports: refuse one name in two files.
    let mut file_of: HashMap<String, String> = HashMap::new();
    for path in &s.workloads {
        let file = path.display().to_string();
        for w in workload::load_file(path)? {
            if let Some(first) = file_of.get(&w.name) {
                return Err(CliError(format!(
                    "{file}: workload `{}` is also in {first}: names must be unique",
                    w.name
                )));
            }
            file_of.insert(w.name.clone(), file.clone());
            all.push(w);
        }
    }
    if s.filter.is_empty() {
        return Ok(all);
    }
    let kept: Vec<Workload> = all
        .iter()
        .filter(|w| s.filter.iter().any(|f| w.name.contains(f.as_str())))
        .cloned()
        .collect();
    if kept.is_empty() {
        let names: Vec<&str> = all.iter().map(|w| w.name.as_str()).collect();
        let wanted: Vec<String> = s.filter.iter().map(|f| format!("`{f}`")).collect();
        return Err(CliError(format!(
            "--filter: no workload name contains {}; the names are: {}",
            wanted.join(" or "),
            names.join(", ")
        )));
    }
    Ok(kept)
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The backend asked for; `auto` falls back to the CPU with one line on stderr.
fn open_backend(
    choice: BackendChoice,
    kernel: pagedattn::Options,
    timing: Timing,
    plan: PlanSource,
) -> Result<Box<dyn Backend>> {
    let cuda = || CudaBench::new(kernel, timing, plan);
    match choice {
        BackendChoice::Cpu => Ok(Box::new(CpuBench::new())),
        BackendChoice::Cuda => match cuda() {
            Ok(b) => Ok(Box::new(b)),
            Err(e) => Err(CliError(format!(
                "backend `cuda` is not available: {}",
                reason(&e)
            ))),
        },
        BackendChoice::Auto => match cuda() {
            Ok(b) => Ok(Box::new(b)),
            Err(e) => {
                let what = match e {
                    Error::Call(pagedattn::Error::NoDevice(_)) => "no CUDA GPU found",
                    _ => "CUDA backend unavailable",
                };
                eprintln!("{what} ({}): running the CPU backend", reason(&e));
                Ok(Box::new(CpuBench::new()))
            }
        },
    }
}

/// The error's text without a variant prefix the sentence already says.
fn reason(e: &Error) -> String {
    match e {
        Error::Call(pagedattn::Error::NoDevice(msg)) => msg.clone(),
        Error::Call(pagedattn::Error::BackendUnavailable(_, msg)) => msg.clone(),
        other => other.to_string(),
    }
}

fn progress_bar(n: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{bar:24}] {pos}/{len} {elapsed_precise} {wide_msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Writes to stdout. A closed pipe (`pagedattn | head`) ends the program
/// quietly, as it would a Unix filter; print! would panic instead.
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(1);
    }
}

fn write_json(path: &Path, mut file: std::fs::File, report: &BenchReport) -> Result<()> {
    let fail = |msg: String| CliError(format!("{}: {msg}", path.display()));
    let text = serde_json::to_string_pretty(report).map_err(|e| fail(e.to_string()))?;
    file.write_all((text + "\n").as_bytes())
        .map_err(|e| fail(e.to_string()))
}
