//! Prints, for each call of workload files, whether
//! `TileConfig::prefers_m192` gives it to m192: how the held-out
//! cached-prefix sets of `scripts/make-sweep-workloads.py` are split into
//! calls the rule takes and calls it leaves.
//!
//!     cargo run --release -p pagedattn-cli --example m192_calls -- FILE.jsonl ...
use pagedattn::schedule::TileConfig;
use pagedattn_cli::workload::load_file;

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
            let m192 = TileConfig::prefers_m192(&w.qo_indptr, &w.kv_indptr);
            println!("{}\t{}", w.name, if m192 { "m192" } else { "-" });
        }
    }
}
