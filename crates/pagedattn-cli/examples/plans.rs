//! Prints, for each call of workload files, the configuration the host
//! picks and the plan the kernel runs on an H200 (132 SMs) under the host
//! plan (`PagedPrefill::plan`): the grid (and whether the call takes the
//! direct entry point, [`planned_launch`]), the split size, the chunks
//! of the longest tile and the work units. `--tile=NAME` plans every call on
//! that configuration instead (what `pagedattn bench --tile NAME` runs);
//! `--split=N` chunks of at most N key blocks, `--split=never` none
//! (`pagedattn bench --split N|never`);
//! `--time` adds this machine's host time of the call's [`HostPlan`] (the
//! indptrs and page ids validated, the configuration chosen) and of the
//! plan image `PagedPrefill::plan` uploads ([`plan_image`]; median of 51
//! runs each, microseconds).
//!
//!     cargo run --release -p pagedattn-cli --example plans -- [--tile=m64] [--split=N|never] [--time] FILE.jsonl ...
use pagedattn::schedule::{HostPlan, SplitPolicy, TileConfig};
use pagedattn::units::{
    launch_grid, merge_slots, plan_image, planned_launch, PlanInputs, UnitPlan,
};
use pagedattn_cli::workload::load_file;

const SMS: usize = 132;

fn main() {
    let mut forced = None;
    let mut split = SplitPolicy::Auto;
    let mut time = false;
    for arg in std::env::args().skip(1) {
        if arg == "--time" {
            time = true;
            continue;
        }
        if let Some(n) = arg.strip_prefix("--split=") {
            split = match n {
                "auto" => SplitPolicy::Auto,
                "never" => SplitPolicy::Never,
                _ => match n.parse::<u32>() {
                    Ok(n) if n > 0 => SplitPolicy::Blocks(n),
                    _ => {
                        eprintln!("--split wants auto, never or a positive block count, not {n}");
                        std::process::exit(2);
                    }
                },
            };
            continue;
        }
        if let Some(name) = arg.strip_prefix("--tile=") {
            forced = TileConfig::ALL.into_iter().find(|c| c.name() == name);
            if forced.is_none() {
                eprintln!("unknown configuration {name}");
                std::process::exit(2);
            }
            continue;
        }
        let file = arg;
        let calls = match load_file(&file) {
            Ok(calls) => calls,
            Err(e) => {
                eprintln!("{file}: {e}");
                std::process::exit(2);
            }
        };
        for w in calls {
            let dims = w.dims();
            // The configuration the bench and the Python `plan` launch, or
            // the forced one.
            let config = match HostPlan::new(&dims, &w.qo_indptr, &w.kv_indptr, None) {
                Ok(plan) => forced.unwrap_or(plan.config),
                Err(e) => {
                    eprintln!("{}: {e}", w.name);
                    continue;
                }
            };
            let ctas_per_sm = if config == TileConfig::M64 { 2 } else { 1 };
            // The CUDA backend's launch shape on the resident CTAs.
            let resident = (SMS * ctas_per_sm) as u64;
            let Some((grid, direct)) = launch_grid(config, &dims, split, resident) else {
                println!("{}\t{}\tnothing to compute", w.name, config.name());
                continue;
            };
            let grid = grid as usize;
            let inputs = PlanInputs {
                config,
                qo_indptr: &w.qo_indptr,
                kv_indptr: &w.kv_indptr,
                total_q: dims.total_q,
                num_kv_indices: dims.num_kv_indices,
                grid,
                split,
                partial_slots: merge_slots(config, SMS),
            };
            // The host plan's launch (what the bench and the Python `plan`
            // run): direct where the persistent grid would split nothing.
            let launch = planned_launch(&inputs, direct, resident);
            let (grid, direct) = (launch.grid as usize, launch.direct);
            let inputs = PlanInputs {
                grid,
                split: launch.split,
                ..inputs
            };
            let plan = UnitPlan::new(&inputs);
            let times = if time {
                let host = median_us(|| {
                    let p = HostPlan::new(&dims, &w.qo_indptr, &w.kv_indptr, Some(&w.kv_indices));
                    std::hint::black_box(p.is_ok());
                });
                let image = median_us(|| {
                    std::hint::black_box(plan_image(&inputs).map(|i| i.len()));
                });
                format!("\thost plan {host:.1} us\tplan image {image:.1} us")
            } else {
                String::new()
            };
            let max_chunks = plan.units.iter().map(|u| u.n_chunks).max().unwrap_or(0);
            let chunk = if plan.chunk == i64::MAX {
                "-".to_string()
            } else {
                plan.chunk.to_string()
            };
            println!(
                "{}\t{}\tgrid {}{}\tchunk {}\tchunks/tile {}\tunits {}\tsplit units {}{}",
                w.name,
                config.name(),
                grid,
                if direct { " direct" } else { "" },
                chunk,
                max_chunks,
                plan.units.len(),
                plan.split_units,
                times
            );
        }
    }
}

/// Median wall time of `f` over 51 runs (after 5 unmeasured), microseconds.
fn median_us(mut f: impl FnMut()) -> f64 {
    for _ in 0..5 {
        f();
    }
    let mut t: Vec<f64> = (0..51)
        .map(|_| {
            let t0 = std::time::Instant::now();
            f();
            t0.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}
