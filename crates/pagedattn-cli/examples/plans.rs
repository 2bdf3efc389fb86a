//! Prints, for each call of workload files, the configuration the host
//! picks and the plan the kernel runs on an H200 (132 SMs): the grid (and
//! whether the call takes the direct entry point), the split size, the chunks
//! of the longest tile and the work units.
//!
//!     cargo run --release -p pagedattn-cli --example plans -- FILE.jsonl ...
use pagedattn::schedule::{HostPlan, SplitPolicy, TileConfig};
use pagedattn::units::{max_units, merge_slots, PlanInputs, UnitPlan};
use pagedattn_cli::workload::load_file;

const SMS: usize = 132;

fn main() {
    for file in std::env::args().skip(1) {
        let calls = match load_file(&file) {
            Ok(calls) => calls,
            Err(e) => {
                eprintln!("{file}: {e}");
                std::process::exit(2);
            }
        };
        for w in calls {
            let dims = w.dims();
            // The configuration the bench and the Python `plan` launch.
            let config = match HostPlan::new(&dims, &w.qo_indptr, &w.kv_indptr, None) {
                Ok(plan) => plan.config,
                Err(e) => {
                    eprintln!("{}: {e}", w.name);
                    continue;
                }
            };
            let ctas_per_sm = if config == TileConfig::M64 { 2 } else { 1 };
            // The launch's grid: the resident CTAs, or fewer where the call
            // cannot have as many units (the CUDA backend's launch shape).
            let resident = (SMS * ctas_per_sm) as u64;
            let bound = max_units(config, &dims, SplitPolicy::Auto, resident);
            let grid = resident.min(bound).max(1) as usize;
            let tiles =
                pagedattn::schedule::tiles_per_head(dims.total_q, dims.batch, config.block_m())
                    as u64
                    * pagedattn::problem::NUM_KV_HEADS as u64;
            let direct = bound == tiles && tiles <= grid as u64;
            let plan = UnitPlan::new(&PlanInputs {
                config,
                qo_indptr: &w.qo_indptr,
                kv_indptr: &w.kv_indptr,
                total_q: dims.total_q,
                num_kv_indices: dims.num_kv_indices,
                grid,
                split: SplitPolicy::Auto,
                partial_slots: merge_slots(config, SMS),
            });
            let max_chunks = plan.units.iter().map(|u| u.n_chunks).max().unwrap_or(0);
            let chunk = if plan.chunk == i64::MAX {
                "-".to_string()
            } else {
                plan.chunk.to_string()
            };
            println!(
                "{}\t{}\tgrid {}{}\tchunk {}\tchunks/tile {}\tunits {}\tsplit units {}",
                w.name,
                config.name(),
                grid,
                if direct { " direct" } else { "" },
                chunk,
                max_chunks,
                plan.units.len(),
                plan.split_units
            );
        }
    }
}
