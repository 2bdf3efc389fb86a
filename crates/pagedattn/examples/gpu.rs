//! The operation on a Hopper GPU through the launch API: upload a batch,
//! launch the kernel (unchecked, then checked), and compare with the CPU
//! backend. Without a Hopper GPU it says so and exits cleanly.
//!
//!     cargo run --release --example gpu

use pagedattn::check::compare;
use pagedattn::half::bf16;
use pagedattn::problem::default_sm_scale;
use pagedattn::{cpu_attention, CudaBackend, DeviceBuffers, Dims, Error, HostProblem};

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

fn main() -> Result<(), Error> {
    // Device 0, its own stream, the kernels loaded. Never panics: without a
    // driver or a Hopper GPU it returns an error that says why.
    let gpu = match CudaBackend::new() {
        Ok(gpu) => gpu,
        Err(e @ (Error::NoDevice(_) | Error::UnsupportedDevice(_))) => {
            println!("no Hopper GPU here ({e}); nothing to run");
            return Ok(());
        }
        Err(e) => return Err(e), // e.g. built without kernels
    };
    println!("running on {}", gpu.device());

    // 8 sequences of 100..450 tokens, each after a 64-token cached prefix.
    let mut qo_indptr = vec![0i32];
    let mut kv_indptr = vec![0i32];
    for b in 0..8 {
        let q_len = 100 + 50 * b;
        qo_indptr.push(qo_indptr[b as usize] + q_len);
        kv_indptr.push(kv_indptr[b as usize] + q_len + 64);
    }
    let keys = *kv_indptr.last().unwrap() as usize;
    let num_pages = keys + 100; // a pool larger than what is read
    let kv_indices: Vec<i32> = (0..keys).map(|i| ((i * 7919) % num_pages) as i32).collect();
    let dims = Dims::new(*qo_indptr.last().unwrap() as usize, num_pages, 8, keys);
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

    // Inputs, outputs and a workspace on the device (refused before
    // allocating when they do not fit).
    let (attn, stream) = (gpu.kernel(), gpu.stream());
    let mut bufs = DeviceBuffers::upload(attn, stream, &call)?;

    // The serving path: one launch, no synchronisation, graph-capturable;
    // bad index contents raise a device flag read later.
    bufs.with_views(|p, out, lse, ws| attn.launch(stream, p, out, lse, ws))?;
    attn.take_device_errors(stream, &mut bufs.workspace)?;
    let fast = bufs.download(stream)?;

    // With the indptrs on the host: validated there, tile chosen from the
    // real lengths, then the checked launch (waits, reports device errors).
    let plan = attn.plan(stream, &dims, &qo_indptr, &kv_indptr, Some(&kv_indices))?;
    bufs.with_views(|p, out, lse, ws| attn.launch_planned(&plan, stream, p, out, lse, ws))?;
    bufs.with_views(|p, out, lse, ws| attn.launch_checked(stream, p, out, lse, ws))?;

    let report = compare(&fast, &cpu_attention(&call)?);
    println!(
        "{} tokens in {} sequences ({:?} tiles): max |gpu - cpu| out {:.2e}, lse {:.2e}: {}",
        dims.total_q,
        dims.batch,
        plan.config(),
        report.max_abs_out,
        report.max_abs_lse,
        if report.ok() { "ok" } else { "MISMATCH" }
    );
    if !report.ok() {
        std::process::exit(1);
    }
    Ok(())
}
