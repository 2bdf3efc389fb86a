//! The text printed on stdout: a markdown table (so that it can be pasted into
//! BENCHMARKS.md as is), one row per workload as soon as it is done, then a
//! summary.

use pagedattn_cli::backend::Peaks;
use pagedattn_cli::bench::{self, BenchReport, BenchRow, Mode, Status};
use pagedattn_cli::workload::Workload;

/// Lines above the table: what runs where, and the peaks of the floor.
pub fn header(mode: Mode, backend: &str, device: &str, peaks: &Peaks, seed: u64) -> String {
    let what = match mode {
        Mode::Bench => "bench",
        Mode::Check => "check",
    };
    // A backend may measure one peak and not the other (`measured` is false
    // then): label each by whether it is SPEC.md's H200 value.
    let label = |value: f64, default: f64| {
        if !peaks.measured && value == default {
            " (SPEC.md H200 value)"
        } else {
            " (measured)"
        }
    };
    let d = Peaks::H200_DEFAULT;
    format!(
        "pagedattn {what}: backend {backend} on {device}; input seed {seed}\n\
         floor = max(FLOPs / {:.0} TFLOP/s{}, bytes / {:.0} GB/s{})\n\n",
        peaks.matmul_tflops,
        label(peaks.matmul_tflops, d.matmul_tflops),
        peaks.copy_gbps,
        label(peaks.copy_gbps, d.copy_gbps),
    )
}

/// Renders rows with widths fixed before the first row is done.
pub struct RowPrinter {
    mode: Mode,
    name_width: usize,
}

impl RowPrinter {
    pub fn new(mode: Mode, workloads: &[Workload]) -> Self {
        let name_width = workloads
            .iter()
            .map(|w| w.name.len())
            .chain(["workload".len()])
            .max()
            .unwrap_or(8);
        RowPrinter { mode, name_width }
    }

    fn columns(&self) -> &'static [(&'static str, usize)] {
        match self.mode {
            Mode::Bench => &[
                ("total_q", 7),
                ("batch", 5),
                ("pairs", 10),
                ("time us", 10),
                ("floor us", 9),
                ("floor/time", 10),
                ("TFLOP/s", 8),
                ("launch", 15),
                ("check", 9),
                ("max err out / lse", 17),
            ],
            Mode::Check => &[
                ("total_q", 7),
                ("batch", 5),
                ("pairs", 10),
                ("check", 9),
                ("reference", 9),
                ("max abs out", 11),
                ("max abs lse", 11),
                ("out viol", 8),
                ("lse viol", 8),
                ("NaN", 5),
                ("-inf mism", 9),
            ],
        }
    }

    /// The header row and the separator.
    pub fn column_names(&self) -> String {
        let cols = self.columns();
        let names: Vec<String> = cols.iter().map(|(n, w)| format!("{n:>w$}")).collect();
        let rules: Vec<String> = cols
            .iter()
            .map(|(_, w)| format!("{}:", "-".repeat(w + 1)))
            .collect();
        format!(
            "| {:<nw$} | {} | note |\n|{}|{}|---|\n",
            "workload",
            names.join(" | "),
            "-".repeat(self.name_width + 2),
            rules.join("|"),
            nw = self.name_width
        )
    }

    /// One workload's line.
    pub fn row(&self, r: &BenchRow) -> String {
        let check = r.check.as_ref();
        let cells: Vec<String> = match self.mode {
            Mode::Bench => vec![
                r.total_q.to_string(),
                r.batch.to_string(),
                r.pairs.to_string(),
                opt(r.time_us, 1),
                format!("{:.2}", r.floor_us),
                r.floor_fraction
                    .map_or("-".into(), |f| short(100.0 * f) + "%"),
                r.tflops.map_or("-".into(), short),
                r.launch.clone().unwrap_or_else(|| "-".into()),
                r.status.to_string(),
                check.map_or("-".into(), |c| {
                    format!("{:.1e} / {:.1e}", c.max_abs_out, c.max_abs_lse)
                }),
            ],
            Mode::Check => vec![
                r.total_q.to_string(),
                r.batch.to_string(),
                r.pairs.to_string(),
                r.status.to_string(),
                r.reference.clone().unwrap_or_else(|| "-".into()),
                check.map_or("-".into(), |c| format!("{:.2e}", c.max_abs_out)),
                check.map_or("-".into(), |c| format!("{:.2e}", c.max_abs_lse)),
                check.map_or("-".into(), |c| c.out_violations.to_string()),
                check.map_or("-".into(), |c| c.lse_violations.to_string()),
                check.map_or("-".into(), |c| c.nans.to_string()),
                check.map_or("-".into(), |c| c.inf_mismatches.to_string()),
            ],
        };
        let padded: Vec<String> = cells
            .iter()
            .zip(self.columns())
            .map(|(c, (_, w))| format!("{c:>w$}"))
            .collect();
        format!(
            "| {:<nw$} | {} | {} |\n",
            r.name,
            padded.join(" | "),
            r.note.as_deref().unwrap_or(""),
            nw = self.name_width
        )
    }
}

/// Three significant digits at most, for numbers from 1e-6 to thousands.
fn short(x: f64) -> String {
    if x >= 100.0 || x == 0.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 0.01 {
        format!("{x:.2}")
    } else {
        format!("{x:.1e}")
    }
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// Counts per status, the geomean of floor/time, failures by name.
pub fn summary(report: &BenchReport) -> String {
    let mut s = String::from("\n");
    let count = |st: Status| report.rows.iter().filter(|r| r.status == st).count();
    let parts: Vec<String> = [
        Status::Ok,
        Status::Reference,
        Status::Unchecked,
        Status::Skipped,
        Status::Fail,
        Status::Error,
    ]
    .into_iter()
    .filter(|&st| count(st) > 0)
    .map(|st| format!("{} {st}", count(st)))
    .collect();
    let n = report.rows.len();
    let plural = if n == 1 { "" } else { "s" };
    s += &format!("{n} workload{plural}: {}\n", parts.join(", "));
    let fractions: Vec<f64> = report
        .rows
        .iter()
        .filter_map(|r| r.floor_fraction)
        .collect();
    if let Some(g) = geomean(&fractions) {
        s += &format!(
            "geomean floor/time over the timed workloads ({}): {:.2}%\n",
            fractions.len(),
            100.0 * g
        );
    }
    let seed: Vec<&BenchRow> = report
        .rows
        .iter()
        .filter(|r| r.name.starts_with("seed"))
        .collect();
    let seed_times: Vec<f64> = seed.iter().filter_map(|r| r.time_us).collect();
    if !seed_times.is_empty() && seed_times.len() == seed.len() {
        if let Some(g) = geomean(&seed_times) {
            s += &format!(
                "geomean time over the seed workloads ({}): {g:.1} us\n",
                seed.len()
            );
        }
    }
    for r in report
        .rows
        .iter()
        .filter(|r| matches!(r.status, Status::Fail | Status::Error))
    {
        s += &format!(
            "{} {}: {}\n",
            r.status,
            r.name,
            r.note.as_deref().unwrap_or("")
        );
    }
    s
}

fn geomean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|&x| x <= 0.0 || !x.is_finite()) {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// `pagedattn list`: sizes, the floor with the H200 peaks of SPEC.md and the
/// tile configuration the host plan chooses (`-` where it refuses the call).
pub fn list(workloads: &[Workload]) -> String {
    let nw = workloads
        .iter()
        .map(|w| w.name.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let mut s = format!(
        "| {:<nw$} | total_q | batch | num_pages |      pairs |  GFLOP |     MB | H200 floor us | plan   |\n\
         |{}|--------:|------:|----------:|-----------:|-------:|-------:|--------------:|--------|\n",
        "workload",
        "-".repeat(nw + 2)
    );
    for w in workloads {
        let (floor, bound) = bench::floor_us(w.flops(), w.bytes(), &Peaks::H200_DEFAULT);
        let plan = pagedattn::HostPlan::new(&w.dims(), &w.qo_indptr, &w.kv_indptr, None)
            .map_or("-", |p| p.config.name());
        s += &format!(
            "| {:<nw$} | {:>7} | {:>5} | {:>9} | {:>10} | {:>6.2} | {:>6.2} | {:>6.2} {:<6} | {:<6} |\n",
            w.name,
            w.total_q,
            w.batch(),
            w.num_pages,
            w.visible_pairs(),
            w.flops() / 1e9,
            w.bytes() / 1e6,
            floor,
            if bound == "compute" { "(c)" } else { "(m)" },
            plan,
        );
    }
    s
}
