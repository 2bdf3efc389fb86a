//! The operation on the CPU: a batch of two sequences over a shared paged KV
//! cache, computed by the exact CPU backend and checked against the naive
//! reference.
//!
//!     cargo run --release --example cpu

use pagedattn::check::compare;
use pagedattn::half::bf16;
use pagedattn::problem::default_sm_scale;
use pagedattn::{cpu_attention, naive_attention, Dims, HostProblem};

/// Deterministic values in [-1, 1) (no random-number crate needed).
fn values(n: usize, seed: u32) -> Vec<bf16> {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            bf16::from_f32(x as f32 / u32::MAX as f32 * 2.0 - 1.0)
        })
        .collect()
}

fn main() -> Result<(), pagedattn::Error> {
    // Sequence 0: 5 new tokens after a 3-token cached prefix (8 keys).
    // Sequence 1: 4 new tokens, no prefix; it shares page 2 with sequence 0.
    let qo_indptr = [0, 5, 9];
    let kv_indptr = [0, 8, 12];
    let kv_indices = [2, 7, 1, 0, 3, 4, 5, 6, 8, 2, 9, 10];
    let dims = Dims::new(9, 11, 2, kv_indices.len()); // total_q, num_pages, batch, keys
    let q = values(dims.q_elems(), 1);
    let k_cache = values(dims.kv_elems(), 2);
    let v_cache = values(dims.kv_elems(), 3);
    let call = HostProblem {
        dims,
        q: &q,
        k_cache: &k_cache,
        v_cache: &v_cache,
        qo_indptr: &qo_indptr,
        kv_indptr: &kv_indptr,
        kv_indices: &kv_indices,
        sm_scale: default_sm_scale(),
    };

    let out = cpu_attention(&call)?; // validates the call, then computes it
    let reference = naive_attention(&call)?;
    let report = compare(&out, &reference);
    println!(
        "{} tokens x 24 heads: max |out - naive| {:.2e}, max |lse - naive| {:.2e}: {}",
        dims.total_q,
        report.max_abs_out,
        report.max_abs_lse,
        if report.ok() { "ok" } else { "MISMATCH" }
    );
    for t in 0..dims.total_q {
        println!(
            "token {t}: lse[head 0] = {:7.4}, out[head 0][0..4] = {:?}",
            out.lse[t * 24],
            &out.out[t * 24 * 128..t * 24 * 128 + 4]
        );
    }

    // Bad input is a typed error, never a panic.
    let bad = HostProblem {
        kv_indices: &[2, 7, 1, 0, 3, 4, 5, 6, 8, 2, 9, 11], // page 11 of 11
        ..call
    };
    println!("page out of range: {}", cpu_attention(&bad).unwrap_err());
    if report.ok() {
        Ok(())
    } else {
        std::process::exit(1)
    }
}
