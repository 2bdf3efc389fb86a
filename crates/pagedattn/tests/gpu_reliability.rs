//! Reliability tests of the CUDA backend: sizes past 32-bit offsets, very
//! large calls, two streams at once, a 1000-batch fuzz, extreme scales,
//! non-finite inputs, refused device buffers and empty calls.
//!
//! They need a Hopper GPU and are `#[ignore]`d, so that `cargo test` elsewhere
//! reports them as ignored (only `paged_prefill_is_send_sync` runs
//! everywhere). Run them on the GPU machine with
//!
//! ```text
//! cargo test --release --test gpu_reliability -- --ignored               # all, in parallel
//! cargo test --release --test gpu_reliability -- --ignored --nocapture   # with the summary lines
//! ```
//!
//! Every run draws fresh random inputs; the seed is printed once
//! (`GPU test seed: PAGEDATTN_TEST_SEED=<seed>`) and replays the run when set.
//! `PAGEDATTN_FUZZ_BATCHES=N` changes the fuzz count (default 1000) and
//! `PAGEDATTN_FUZZ_FROM=I` starts it at batch `I` (to replay one failing batch).
//! Outputs are poisoned with NaN bytes before every launch, so an element the
//! kernel does not write fails the comparison. Each test uses its own stream.
//!
//! Large tensors are not drawn element by element: [`tiled_normal`] repeats a
//! block of a prime number of standard normals, so no two q rows or kv pages
//! of a call are equal while the host side stays fast. The reference for the
//! large calls is the GPU fp32 reference kernel (`launch_reference`), itself
//! checked against the CPU backend by `tests/gpu.rs`.

mod common;

use std::sync::{Arc, Barrier};
use std::time::Instant;

use pagedattn::cudarc::driver::{CudaSlice, CudaStream, CudaViewMut, DevicePtr, DevicePtrMut};
use pagedattn::half::bf16;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use pagedattn::backend::cpu;
use pagedattn::check::{compare, CheckReport, ATOL, RTOL};
use pagedattn::problem::{
    default_sm_scale, sequences, Dims, HostProblem, Output, HEAD_DIM, NUM_KV_HEADS, NUM_QO_HEADS,
};
use pagedattn::Error;
use pagedattn::{CudaBackend, DeviceBuffers, DeviceProblem, PagedPrefill, Workspace};
use pagedattn_cli::generate::{self, random_batch, BatchSpec};
use pagedattn_cli::workload::Workload;

// ---------------------------------------------------------------- harness

use common::{env_u64, run_seed};

/// A well-mixed seed for part `tag` of a run.
fn sub_seed(base: u64, tag: u64) -> u64 {
    let mut z = base ^ tag.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A fresh stream of the backend's context, so that tests running in
/// parallel do not queue behind each other. Every buffer of a test is
/// allocated and used on its stream (the backend disables cudarc's
/// cross-stream event tracking).
fn own_stream(b: &CudaBackend) -> Arc<CudaStream> {
    b.kernel().context().new_stream().expect("new stream")
}

// ---------------------------------------------------------------- inputs

/// `n` standard normals rounded to bf16, drawn one by one (small buffers).
fn normal_vec(n: usize, seed: u64) -> Vec<bf16> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let x: f32 = StandardNormal.sample(&mut rng);
            bf16::from_f32(x)
        })
        .collect()
}

/// Elements of the block [`tiled_normal`] repeats: a prime, so a q row
/// (3072 elements) or a kv page (512) starts at a different offset of the
/// block for the first million rows or pages.
const TILE: usize = 1_000_003;

/// `n` bf16 values for large tensors: one block of [`TILE`] standard
/// normals, repeated. Fast (a memcpy per block) and, thanks to the prime
/// period, without two equal rows in any tensor these tests build.
fn tiled_normal(n: usize, seed: u64) -> Vec<bf16> {
    let block = normal_vec(TILE.min(n), seed);
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let take = (n - v.len()).min(block.len());
        v.extend_from_slice(&block[..take]);
    }
    v
}

fn scaled(x: &[bf16], by: f32) -> Vec<bf16> {
    x.iter().map(|v| bf16::from_f32(v.to_f32() * by)).collect()
}

/// A workload from `(q_len, page ids)` per sequence, checked valid.
fn workload(name: &str, num_pages: usize, seqs: &[(usize, Vec<i32>)], sm_scale: f32) -> Workload {
    let w = generate::from_sequences(name, num_pages, seqs, sm_scale);
    w.validate().expect("test workload is valid");
    w
}

fn host_problem<'a>(
    w: &'a Workload,
    q: &'a [bf16],
    k_cache: &'a [bf16],
    v_cache: &'a [bf16],
) -> HostProblem<'a> {
    HostProblem {
        dims: w.dims(),
        q,
        k_cache,
        v_cache,
        qo_indptr: &w.qo_indptr,
        kv_indptr: &w.kv_indptr,
        kv_indices: &w.kv_indices,
        sm_scale: w.sm_scale,
    }
}

/// Per token: how many keys it sees.
fn visible_per_token(w: &Workload) -> Vec<usize> {
    let mut v = vec![0; w.total_q];
    for s in sequences(&w.qo_indptr, &w.kv_indptr) {
        for i in 0..s.q_len {
            v[s.q_start + i] = s.visible(i);
        }
    }
    v
}

// ---------------------------------------------------------------- running

/// Sets every byte of a device buffer to 0xff (NaN in bf16 and f32).
fn poison<T, B: DevicePtrMut<T>>(stream: &CudaStream, buf: &mut B) {
    let bytes = buf.num_bytes();
    if bytes == 0 {
        return;
    }
    let (ptr, _g) = buf.device_ptr_mut(stream);
    // SAFETY: `bytes` bytes at `ptr` belong to `buf`.
    unsafe {
        pagedattn::cudarc::driver::result::memset_d8_async(ptr, 0xff, bytes, stream.cu_stream())
    }
    .expect("memset");
}

/// The fast kernel's and the reference kernel's outputs on the same device
/// buffers, and the seconds each launch took.
struct Both {
    fast: Output,
    reference: Output,
    fast_s: f64,
    reference_s: f64,
}

/// Fast kernel (checked mode), then reference kernel, each on poisoned outputs.
fn fast_and_reference(
    b: &CudaBackend,
    stream: &Arc<CudaStream>,
    bufs: &mut DeviceBuffers,
) -> Result<Both, Error> {
    bufs.poison(stream)?;
    let t = Instant::now();
    bufs.with_views(|v, out, lse, ws| b.kernel().launch_checked(stream, v, out, lse, ws))?;
    let fast_s = t.elapsed().as_secs_f64();
    let fast = bufs.download(stream)?;
    bufs.poison(stream)?;
    let t = Instant::now();
    bufs.with_views(|v, out, lse, _| b.kernel().launch_reference(stream, v, out, lse))?;
    stream.synchronize()?;
    let reference_s = t.elapsed().as_secs_f64();
    let reference = bufs.download(stream)?;
    Ok(Both {
        fast,
        reference,
        fast_s,
        reference_s,
    })
}

fn download(
    stream: &Arc<CudaStream>,
    out: &CudaSlice<bf16>,
    lse: &CudaSlice<f32>,
) -> Result<Output, Error> {
    let out = stream.clone_dtoh(out)?;
    let lse = stream.clone_dtoh(lse)?;
    stream.synchronize()?;
    Ok(Output { out, lse })
}

/// Like [`fast_and_reference`] on hand-made device buffers.
fn fast_and_reference_raw(
    b: &CudaBackend,
    stream: &Arc<CudaStream>,
    p: &DeviceProblem<'_>,
    out: &mut CudaSlice<bf16>,
    lse: &mut CudaSlice<f32>,
) -> Result<Both, Error> {
    let mut ws = b.kernel().workspace(stream)?;
    poison(stream, out);
    poison(stream, lse);
    let t = Instant::now();
    b.kernel().launch_checked(
        stream,
        p,
        &mut out.as_view_mut(),
        &mut lse.as_view_mut(),
        &mut ws,
    )?;
    let fast_s = t.elapsed().as_secs_f64();
    let fast = download(stream, out, lse)?;
    poison(stream, out);
    poison(stream, lse);
    let t = Instant::now();
    b.kernel()
        .launch_reference(stream, p, &mut out.as_view_mut(), &mut lse.as_view_mut())?;
    stream.synchronize()?;
    let reference_s = t.elapsed().as_secs_f64();
    let reference = download(stream, out, lse)?;
    Ok(Both {
        fast,
        reference,
        fast_s,
        reference_s,
    })
}

fn assert_close(name: &str, got: &Output, reference: &Output) -> CheckReport {
    let rep = compare(got, reference);
    assert!(
        rep.ok(),
        "{name}: output differs from the reference beyond the SPEC.md bound: {rep:?}"
    );
    rep
}

/// No NaN anywhere; lse finite exactly for the tokens that see a key and
/// `-inf` for the others.
fn assert_lse_pattern(name: &str, got: &Output, visible: &[usize]) {
    let nan_out = got.out.iter().filter(|x| x.is_nan()).count();
    assert_eq!(nan_out, 0, "{name}: {nan_out} NaN output elements");
    for (t, &n) in visible.iter().enumerate() {
        for h in 0..NUM_QO_HEADS {
            let l = got.lse[t * NUM_QO_HEADS + h];
            if n > 0 {
                assert!(
                    l.is_finite(),
                    "{name}: token {t} head {h} sees {n} keys but lse is {l}"
                );
            } else {
                assert_eq!(
                    l,
                    f32::NEG_INFINITY,
                    "{name}: token {t} head {h} sees no key but lse is {l}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------- 1. >4 GiB cache

/// A KV cache of 4.3M pages: 4.4 GB per tensor (over 2^32 bytes and over
/// 2^31 elements). Sequences read pages at both ends of the pool and around
/// the byte offsets 2^31 and 2^32; any 32-bit truncation of a page offset
/// lands on another page (zero or different data) and fails the comparison.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn scale_kv_cache_over_4gib() {
    let b = gpu!("scale_kv_cache_over_4gib");
    let t0 = Instant::now();
    let seed = sub_seed(run_seed(), 1);
    const NUM_PAGES: usize = 4_300_000;
    const ROW: usize = NUM_KV_HEADS * HEAD_DIM; // elements per page
    let cache_bytes = NUM_PAGES * ROW * 2;
    assert!(cache_bytes as u64 > 1 << 32 && (NUM_PAGES * ROW) as u64 > i32::MAX as u64);
    let (free, _) = b.kernel().context().mem_get_info().expect("mem_get_info");
    if free < 2 * cache_bytes + (2 << 30) {
        println!(
            "SKIPPED scale_kv_cache_over_4gib: needs {:.1} GB of free device memory, {:.1} GB free",
            (2 * cache_bytes + (2 << 30)) as f64 / 1e9,
            free as f64 / 1e9
        );
        return;
    }
    // Page 2^21 starts at byte 2^31, page 2^22 at byte 2^32 (and element 2^31).
    let ranges: [(usize, usize); 4] = [
        (0, 256),
        ((1 << 21) - 64, (1 << 21) + 64),
        ((1 << 22) - 256, (1 << 22) + 256),
        (NUM_PAGES - 1024, NUM_PAGES),
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let shuffled = |a: usize, e: usize, rng: &mut ChaCha8Rng| {
        let mut v: Vec<i32> = (a as i32..e as i32).collect();
        v.shuffle(rng);
        v
    };
    let all: Vec<i32> = ranges
        .iter()
        .flat_map(|&(a, e)| a as i32..e as i32)
        .collect();
    let s0 = shuffled(NUM_PAGES - 300, NUM_PAGES, &mut rng); // the last page included
    let s1 = shuffled(ranges[2].0, ranges[2].1, &mut rng); // across byte 2^32
    let mut s2 = shuffled(ranges[1].0, ranges[1].1, &mut rng); // across byte 2^31
    s2.extend(shuffled(0, 128, &mut rng));
    s2.shuffle(&mut rng);
    let s3: Vec<i32> = (0..1000)
        .map(|_| all[rng.gen_range(0..all.len())])
        .collect();
    let mut s4: Vec<i32> = (0..49)
        .map(|_| rng.gen_range(ranges[3].0 as i32..NUM_PAGES as i32))
        .collect();
    s4.push(NUM_PAGES as i32 - 1);
    let w = workload(
        "kv-cache-over-4gib",
        NUM_PAGES,
        &[
            (300, s0),
            (200, s1), // 312-key prefix
            (256, s2), // kv_len == q_len
            (1, s3),   // one query, 1000 keys from every range, repeats
            (100, s4), // kv_len < q_len: 50 rows see no key
        ],
        default_sm_scale(),
    );
    let dims = w.dims();

    let stream = own_stream(b);
    let mut k = stream
        .alloc_zeros::<bf16>(dims.kv_elems())
        .expect("alloc k");
    let mut v = stream
        .alloc_zeros::<bf16>(dims.kv_elems())
        .expect("alloc v");
    for (i, &(a, e)) in ranges.iter().enumerate() {
        let kd = normal_vec((e - a) * ROW, sub_seed(seed, 100 + i as u64));
        let vd = normal_vec((e - a) * ROW, sub_seed(seed, 200 + i as u64));
        stream
            .memcpy_htod(&kd, &mut k.slice_mut(a * ROW..e * ROW))
            .expect("write k pages");
        stream
            .memcpy_htod(&vd, &mut v.slice_mut(a * ROW..e * ROW))
            .expect("write v pages");
    }
    let q = stream
        .clone_htod(&normal_vec(dims.q_elems(), sub_seed(seed, 3)))
        .unwrap();
    let qo = stream.clone_htod(&w.qo_indptr).unwrap();
    let kvp = stream.clone_htod(&w.kv_indptr).unwrap();
    let idx = stream.clone_htod(&w.kv_indices).unwrap();
    let mut out = stream.alloc_zeros::<bf16>(dims.q_elems()).unwrap();
    let mut lse = stream.alloc_zeros::<f32>(dims.lse_elems()).unwrap();
    let (qv, kc, vc) = (q.as_view(), k.as_view(), v.as_view());
    let (qov, kvpv, idxv) = (qo.as_view(), kvp.as_view(), idx.as_view());
    let p = DeviceProblem {
        dims,
        q: &qv,
        k_cache: &kc,
        v_cache: &vc,
        qo_indptr: &qov,
        kv_indptr: &kvpv,
        kv_indices: &idxv,
        sm_scale: w.sm_scale,
    };
    let r = fast_and_reference_raw(b, &stream, &p, &mut out, &mut lse)
        .unwrap_or_else(|e| panic!("kv cache over 4 GiB: {e}"));
    let rep = assert_close("kv cache over 4 GiB", &r.fast, &r.reference);
    assert_lse_pattern("kv cache over 4 GiB", &r.fast, &visible_per_token(&w));
    println!(
        "scale_kv_cache_over_4gib: ok, {NUM_PAGES} pages ({:.2} GB per cache), pages up to {} read, \
         {} tokens; max abs err out {:.2e} lse {:.2e}; fast {:.1} ms, reference {:.1} ms, total {:.1} s",
        cache_bytes as f64 / 1e9,
        NUM_PAGES - 1,
        dims.total_q,
        rep.max_abs_out,
        rep.max_abs_lse,
        r.fast_s * 1e3,
        r.reference_s * 1e3,
        t0.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------- 2. 131072 tokens

/// total_q = 131072: 32 sequences of 2048 tokens and 128 of 512 tokens
/// behind a 256-key cached prefix, in shuffled order, pages shuffled.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn scale_total_q_131072() {
    let b = gpu!("scale_total_q_131072");
    let t0 = Instant::now();
    let seed = sub_seed(run_seed(), 2);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut lens: Vec<(usize, usize)> = vec![(2048, 2048); 32];
    lens.extend(vec![(512, 768); 128]);
    lens.shuffle(&mut rng);
    let num_pages: usize = lens.iter().map(|l| l.1).sum();
    let mut pool: Vec<i32> = (0..num_pages as i32).collect();
    pool.shuffle(&mut rng);
    let mut at = 0;
    let seqs: Vec<(usize, Vec<i32>)> = lens
        .iter()
        .map(|&(q, kv)| {
            at += kv;
            (q, pool[at - kv..at].to_vec())
        })
        .collect();
    let w = workload("total-q-131072", num_pages, &seqs, default_sm_scale());
    assert_eq!(w.total_q, 131_072);
    let d = w.dims();
    let q = tiled_normal(d.q_elems(), sub_seed(seed, 1));
    let k = tiled_normal(d.kv_elems(), sub_seed(seed, 2));
    let v = tiled_normal(d.kv_elems(), sub_seed(seed, 3));
    let host_s = t0.elapsed().as_secs_f64();

    let stream = own_stream(b);
    let mut bufs =
        DeviceBuffers::upload(b.kernel(), &stream, &host_problem(&w, &q, &k, &v)).unwrap();
    let r =
        fast_and_reference(b, &stream, &mut bufs).unwrap_or_else(|e| panic!("total_q 131072: {e}"));
    let rep = assert_close("total_q 131072", &r.fast, &r.reference);
    assert_lse_pattern("total_q 131072", &r.fast, &visible_per_token(&w));
    println!(
        "scale_total_q_131072: ok, {} tokens in {} sequences, {} visible pairs; max abs err out {:.2e} \
         lse {:.2e}; fast {:.1} ms, reference {:.2} s, inputs {:.1} s, total {:.1} s",
        w.total_q,
        w.batch(),
        w.visible_pairs(),
        rep.max_abs_out,
        rep.max_abs_lse,
        r.fast_s * 1e3,
        r.reference_s,
        host_s,
        t0.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------- 3. 4096 sequences

/// 4096 sequences of 0..64 queries (prefixes up to 64 keys, kv_len below
/// q_len, empty sequences, shared and repeated pages).
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn scale_batch_4096_sequences() {
    let b = gpu!("scale_batch_4096_sequences");
    let t0 = Instant::now();
    let seed = sub_seed(run_seed(), 3);
    let spec = BatchSpec {
        max_batch: 4096,
        exact_batch: true,
        max_q_len: 64,
        max_extra_kv: 64,
        max_spare_pages: 1000,
        sm_scale: default_sm_scale(),
    };
    let w = random_batch(seed, &spec);
    assert_eq!(w.batch(), 4096);
    let seqs = sequences(&w.qo_indptr, &w.kv_indptr);
    let no_q = seqs.iter().filter(|s| s.q_len == 0).count();
    let no_kv = seqs.iter().filter(|s| s.kv_len == 0).count();
    let empty = seqs
        .iter()
        .filter(|s| s.q_len == 0 && s.kv_len == 0)
        .count();
    assert!(
        no_q > 0 && no_kv > 0 && empty > 0,
        "the batch should hold empty sequences"
    );
    let d = w.dims();
    let q = tiled_normal(d.q_elems(), sub_seed(seed, 1));
    let k = tiled_normal(d.kv_elems(), sub_seed(seed, 2));
    let v = tiled_normal(d.kv_elems(), sub_seed(seed, 3));

    let stream = own_stream(b);
    let mut bufs =
        DeviceBuffers::upload(b.kernel(), &stream, &host_problem(&w, &q, &k, &v)).unwrap();
    let r = fast_and_reference(b, &stream, &mut bufs)
        .unwrap_or_else(|e| panic!("4096 sequences ({}): {e}", w.name));
    let name = format!("4096 sequences ({})", w.name);
    let rep = assert_close(&name, &r.fast, &r.reference);
    assert_lse_pattern(&name, &r.fast, &visible_per_token(&w));
    println!(
        "scale_batch_4096_sequences: ok, {} tokens, {} pages, {no_q} sequences without queries, \
         {no_kv} without keys, {empty} empty; max abs err out {:.2e} lse {:.2e}; fast {:.1} ms, \
         reference {:.1} ms, total {:.1} s",
        w.total_q,
        w.num_pages,
        rep.max_abs_out,
        rep.max_abs_lse,
        r.fast_s * 1e3,
        r.reference_s * 1e3,
        t0.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------- 4. two streams

fn assert_send_sync<T: Send + Sync>() {}

// Compile-time: one kernel instance may be shared by threads launching on
// several streams.
const _: fn() = || {
    assert_send_sync::<PagedPrefill>();
    assert_send_sync::<CudaBackend>();
    assert_send_sync::<DeviceBuffers>();
};

/// Runs everywhere (no GPU needed): the assertion above is checked when this
/// file compiles.
#[test]
fn paged_prefill_is_send_sync() {
    assert_send_sync::<PagedPrefill>();
    assert_send_sync::<CudaBackend>();
    println!("paged_prefill_is_send_sync: PagedPrefill and CudaBackend are Send + Sync");
}

fn bitwise_equal(a: &Output, b: &Output) -> bool {
    a.out.len() == b.out.len()
        && a.lse.len() == b.lse.len()
        && a.out
            .iter()
            .zip(&b.out)
            .all(|(x, y)| x.to_bits() == y.to_bits())
        && a.lse
            .iter()
            .zip(&b.lse)
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Two different problems on two streams of one context, launched 20 times
/// each from two threads at once through one `&PagedPrefill`: both results
/// bitwise equal to a lone launch and within the bound of the reference.
/// Then `launch_checked` and `take_device_errors` from a fresh thread that
/// never made the context current (the threads above bind it first, since
/// `DeviceBuffers::poison` does not): `Ok` and the same result.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn two_streams_concurrently() {
    let b = gpu!("two_streams_concurrently");
    let t0 = Instant::now();
    let seed = sub_seed(run_seed(), 4);
    const REPS: usize = 20;
    let w1 = random_batch(
        sub_seed(seed, 1),
        &BatchSpec {
            max_batch: 16,
            exact_batch: true,
            max_q_len: 800,
            max_extra_kv: 400,
            max_spare_pages: 100,
            sm_scale: default_sm_scale(),
        },
    );
    let w2 = random_batch(
        sub_seed(seed, 2),
        &BatchSpec {
            max_batch: 64,
            exact_batch: true,
            max_q_len: 150,
            max_extra_kv: 150,
            max_spare_pages: 100,
            sm_scale: 0.05,
        },
    );
    let (i1, i2) = (w1.inputs(sub_seed(seed, 3)), w2.inputs(sub_seed(seed, 4)));
    let (s1, s2) = (own_stream(b), own_stream(b));
    let mut b1 = DeviceBuffers::upload(b.kernel(), &s1, &i1.problem()).unwrap();
    let mut b2 = DeviceBuffers::upload(b.kernel(), &s2, &i2.problem()).unwrap();
    let alone1 = fast_and_reference(b, &s1, &mut b1).expect("problem 1 alone");
    let alone2 = fast_and_reference(b, &s2, &mut b2).expect("problem 2 alone");
    assert_close(
        &format!("problem 1 alone ({})", w1.name),
        &alone1.fast,
        &alone1.reference,
    );
    assert_close(
        &format!("problem 2 alone ({})", w2.name),
        &alone2.fast,
        &alone2.reference,
    );

    let kernel: &PagedPrefill = b.kernel();
    let start = Barrier::new(2);
    let run = |bufs: &mut DeviceBuffers, s: &Arc<CudaStream>| -> Result<Output, Error> {
        kernel.context().bind_to_thread()?;
        bufs.poison(s)?;
        start.wait();
        for _ in 0..REPS {
            bufs.with_views(|v, out, lse, ws| kernel.launch(s, v, out, lse, ws))?;
        }
        s.synchronize()?;
        bufs.download(s)
    };
    let (c1, c2) = std::thread::scope(|sc| {
        let h1 = sc.spawn(|| run(&mut b1, &s1));
        let h2 = sc.spawn(|| run(&mut b2, &s2));
        (h1.join(), h2.join())
    });
    let c1 = c1.expect("thread 1 panicked").expect("stream 1 launches");
    let c2 = c2.expect("thread 2 panicked").expect("stream 2 launches");
    kernel
        .take_device_errors(&s1, &mut b1.workspace)
        .expect("no device error flag after the concurrent launches");
    assert!(
        bitwise_equal(&c1, &alone1.fast),
        "problem 1 ({}): concurrent result differs from the lone launch",
        w1.name
    );
    assert!(
        bitwise_equal(&c2, &alone2.fast),
        "problem 2 ({}): concurrent result differs from the lone launch",
        w2.name
    );
    let r1 = assert_close(
        &format!("problem 1 concurrent ({})", w1.name),
        &c1,
        &alone1.reference,
    );
    let r2 = assert_close(
        &format!("problem 2 concurrent ({})", w2.name),
        &c2,
        &alone2.reference,
    );
    // A thread that never made the context current calls the public API
    // only: PagedPrefill (Send + Sync) must not need the caller to bind it.
    let fresh = std::thread::scope(|sc| {
        sc.spawn(|| -> Result<(), Error> {
            b1.with_views(|v, out, lse, ws| kernel.launch_checked(&s1, v, out, lse, ws))?;
            kernel.take_device_errors(&s1, &mut b1.workspace)
        })
        .join()
    });
    if let Err(e) = fresh.expect("fresh thread panicked") {
        panic!(
            "launch_checked / take_device_errors from a thread that never bound the CUDA context \
             failed: {e} (the launch API should make its context current itself)"
        );
    }
    let c1b = b1.download(&s1).unwrap();
    assert!(
        bitwise_equal(&c1b, &alone1.fast),
        "problem 1 ({}): launch_checked from a fresh thread differs from the lone launch",
        w1.name
    );
    println!(
        "two_streams_concurrently: ok, {REPS} launches per stream from 2 threads; problem 1: {} tokens \
         / {} seqs (err {:.2e}), problem 2: {} tokens / {} seqs (err {:.2e}); bitwise equal to lone \
         launches; checked launch from an unbound thread ok; {:.1} s",
        w1.total_q,
        w1.batch(),
        r1.max_abs_out,
        w2.total_q,
        w2.batch(),
        r2.max_abs_out,
        t0.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------- 5. fuzz

/// The size limits of fuzz batch `s`: 1..100 sequences, 1..700 queries per
/// sequence (lengths around the 128-row tile and 128-key block included),
/// prefixes up to 400 keys, spare pages up to 2000, and one batch in four
/// with a scale other than the default (0, negative, small, large).
fn fuzz_spec(s: u64) -> BatchSpec {
    let mut rng = ChaCha8Rng::seed_from_u64(s ^ 0xF022_5EED);
    let max_batch = *[1, 1, 2, 3, 5, 8, 13, 24, 40, 64, 100]
        .choose(&mut rng)
        .unwrap_or(&1);
    let q = *[
        1, 2, 7, 21, 22, 23, 43, 64, 100, 128, 129, 200, 300, 500, 700,
    ]
    .choose(&mut rng)
    .unwrap_or(&1);
    let sm_scale = match rng.gen_range(0..20) {
        0 => 0.0,
        1 => -default_sm_scale(),
        2 => 0.01,
        3 => 0.3,
        4 => 1.0,
        _ => default_sm_scale(),
    };
    BatchSpec {
        max_batch,
        exact_batch: rng.gen_bool(0.5),
        max_q_len: q.min((8000 / max_batch).max(1)),
        max_extra_kv: *[0, 1, 17, 128, 129, 400].choose(&mut rng).unwrap_or(&0),
        max_spare_pages: *[0, 3, 64, 2000].choose(&mut rng).unwrap_or(&0),
        sm_scale,
    }
}

/// At least 1000 random batches (`PAGEDATTN_FUZZ_BATCHES`), fast kernel in
/// checked mode against the reference kernel on the same device buffers.
/// Batch `i` is `random_batch(s_i, fuzz_spec(s_i))` with inputs
/// `inputs(s_i)`, `s_i = sub_seed(base, 0x5000_0000 + i)`; a failure names
/// `i`, `s_i` and the command that replays that batch alone.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn fuzz_1000_batches() {
    let b = gpu!("fuzz_1000_batches");
    let t0 = Instant::now();
    let base = run_seed();
    let n = env_u64("PAGEDATTN_FUZZ_BATCHES").unwrap_or(1000);
    let from = env_u64("PAGEDATTN_FUZZ_FROM").unwrap_or(0);
    println!("fuzz_1000_batches: base seed PAGEDATTN_TEST_SEED={base}, batches {from}..{n}");
    let stream = own_stream(b);
    let (mut wo, mut wl, mut tokens, mut seqs, mut pairs) = (0f64, 0f64, 0usize, 0usize, 0u64);
    for i in from..n {
        let s = sub_seed(base, 0x5000_0000 + i);
        let spec = fuzz_spec(s);
        let w = random_batch(s, &spec);
        let replay = format!(
            "fuzz batch {i} (batch seed {s}, {} seqs, {} tokens, {spec:?}); replay it alone with \
             PAGEDATTN_TEST_SEED={base} PAGEDATTN_FUZZ_FROM={i} PAGEDATTN_FUZZ_BATCHES={} \
             cargo test --release --test gpu_reliability fuzz_1000_batches -- --ignored",
            w.batch(),
            w.total_q,
            i + 1
        );
        let inputs = w.inputs(s);
        let mut bufs = DeviceBuffers::upload(b.kernel(), &stream, &inputs.problem())
            .unwrap_or_else(|e| panic!("{replay}: upload: {e}"));
        let r =
            fast_and_reference(b, &stream, &mut bufs).unwrap_or_else(|e| panic!("{replay}: {e}"));
        let rep = compare(&r.fast, &r.reference);
        assert!(rep.ok(), "{replay}: differs from the reference: {rep:?}");
        wo = wo.max(rep.max_abs_out);
        wl = wl.max(rep.max_abs_lse);
        tokens += w.total_q;
        seqs += w.batch();
        pairs += w.visible_pairs();
    }
    println!(
        "fuzz_1000_batches: ok, {} batches, {seqs} sequences, {tokens} tokens, {pairs} visible pairs; \
         max abs err out {wo:.2e} lse {wl:.2e}; {:.1} s",
        n.saturating_sub(from),
        t0.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------- 6. extreme scales

/// Scaled dot products around +-1e4 (q and k times 30 with sm_scale +-1, or
/// sm_scale 1000 on standard inputs) and sm_scale 0, -0, negative, tiny
/// (1e-30, the smallest normal, a subnormal): no NaN, lse finite exactly for
/// the rows that see a key, within the SPEC.md bound of the reference; for the
/// zero and tiny scales, lse also within the bound of log2(visible keys); for
/// the negative scales, bitwise the output of -q with the positive scale.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn huge_logits_and_scales() {
    let b = gpu!("huge_logits_and_scales");
    let t0 = Instant::now();
    let seed = sub_seed(run_seed(), 6);
    let spec = BatchSpec {
        max_batch: 6,
        exact_batch: true,
        max_q_len: 100,
        max_extra_kv: 150,
        max_spare_pages: 16,
        sm_scale: default_sm_scale(),
    };
    let mut w = random_batch(seed, &spec);
    let inputs = w.inputs(seed);
    let visible = visible_per_token(&w);
    let q30 = scaled(&inputs.q, 30.0);
    let k30 = scaled(&inputs.k_cache, 30.0);
    let cases: [(&str, bool, f32, bool); 11] = [
        // (label, q and k times 30, sm_scale, lse ~ log2(visible))
        ("logits ~1e4 (q,k x30, scale 1)", true, 1.0, false),
        ("logits ~-1e4 (q,k x30, scale -1)", true, -1.0, false),
        ("logits ~1e4 (scale 1000)", false, 1000.0, false),
        ("scale 0", false, 0.0, true),
        ("scale -0", false, -0.0, true),
        ("scale -1/sqrt(128)", false, -default_sm_scale(), false),
        ("scale -1", false, -1.0, false),
        ("scale 1e-30", false, 1e-30, true),
        ("scale f32::MIN_POSITIVE", false, f32::MIN_POSITIVE, true),
        ("scale 1e-45 (subnormal)", false, 1e-45, true),
        ("scale 1e-6 on x30 inputs", true, 1e-6, false),
    ];
    let stream = own_stream(b);
    let mut worst = (0f64, 0f64);
    for &(label, big, sm_scale, uniform) in &cases {
        w.sm_scale = sm_scale;
        let (q, k) = if big {
            (&q30, &k30)
        } else {
            (&inputs.q, &inputs.k_cache)
        };
        let p = host_problem(&w, q, k, &inputs.v_cache);
        let mut bufs = DeviceBuffers::upload(b.kernel(), &stream, &p).unwrap();
        let name = format!("{label} ({}, seed {seed})", w.name);
        let r = fast_and_reference(b, &stream, &mut bufs).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_lse_pattern(&name, &r.fast, &visible);
        let rep = assert_close(&name, &r.fast, &r.reference);
        worst = (worst.0.max(rep.max_abs_out), worst.1.max(rep.max_abs_lse));
        if sm_scale < 0.0 {
            // The kernel serves a negative scale by negating Q (exact in
            // bf16): the same bits as -q with |scale|.
            w.sm_scale = -sm_scale;
            let neg_q = scaled(q, -1.0);
            let p = host_problem(&w, &neg_q, k, &inputs.v_cache);
            let mut bufs = DeviceBuffers::upload(b.kernel(), &stream, &p).unwrap();
            let m = fast_and_reference(b, &stream, &mut bufs)
                .unwrap_or_else(|e| panic!("{name}, -q: {e}"));
            assert!(
                bitwise_equal(&r.fast, &m.fast),
                "{name}: output with scale {sm_scale} is not bitwise that of -q with scale {}",
                -sm_scale
            );
        }
        if uniform {
            for (t, &n) in visible.iter().enumerate().filter(|(_, n)| **n > 0) {
                let want = (n as f64).log2();
                for h in 0..NUM_QO_HEADS {
                    let got = r.fast.lse[t * NUM_QO_HEADS + h] as f64;
                    assert!(
                        (got - want).abs() <= ATOL + RTOL * want.abs(),
                        "{name}: token {t} head {h}: lse {got}, expected log2({n}) = {want}"
                    );
                }
            }
        }
    }
    println!(
        "huge_logits_and_scales: ok, {} cases on {} tokens / {} seqs; max abs err out {:.2e} lse {:.2e}; {:.1} s",
        cases.len(),
        w.total_q,
        w.batch(),
        worst.0,
        worst.1,
        t0.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------- 7. NaN / Inf

fn within(g: f64, r: f64) -> bool {
    (g - r).abs() <= ATOL + RTOL * r.abs()
}

/// Element-wise comparison that allows non-finite values: NaN exactly where
/// `cpu` has NaN; where `cpu` is +-inf, the same infinity; elsewhere finite
/// and within the SPEC.md bound. Returns the failures, described.
fn compare_nonfinite(got: &Output, cpu: &Output, tolerated: &dyn Fn(usize) -> bool) -> Vec<String> {
    let mut fails = Vec::new();
    let mut check = |what: &str, i: usize, g: f64, c: f64| {
        let ok = if what == "out" && g.is_nan() && tolerated(i) {
            true
        } else if c.is_nan() {
            g.is_nan()
        } else if c.is_infinite() {
            g == c
        } else {
            g.is_finite() && within(g, c)
        };
        if !ok {
            let (t, h, d) = if what == "out" {
                (
                    i / (NUM_QO_HEADS * HEAD_DIM),
                    i / HEAD_DIM % NUM_QO_HEADS,
                    i % HEAD_DIM,
                )
            } else {
                (i / NUM_QO_HEADS, i % NUM_QO_HEADS, 0)
            };
            fails.push(format!(
                "{what} token {t} head {h} dim {d}: got {g}, CPU {c}"
            ));
        }
    };
    for (i, (g, c)) in got.out.iter().zip(&cpu.out).enumerate() {
        check("out", i, g.to_f64(), c.to_f64());
    }
    for (i, (g, c)) in got.lse.iter().zip(&cpu.lse).enumerate() {
        check("lse", i, *g as f64, *c as f64);
    }
    fails
}

/// NaN and Inf in q, k_cache, v_cache on a small batch, fast kernel against
/// the CPU backend (`docs/INPUTS.md` defines its outcome). Asserted per
/// element of output and lse: NaN exactly where the CPU has NaN; where the
/// CPU has +-inf, the same infinity; everywhere else finite and within the
/// SPEC.md bound of the CPU. Variants: NaN in one q row; +inf in one
/// element of one v row that only part of a tile sees; NaN in one k row; the
/// first two together; NaN and Inf in every page nobody references (nothing
/// may change).
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn nan_inf_inputs_propagate_like_cpu() {
    let b = gpu!("nan_inf_inputs_propagate_like_cpu");
    let t0 = Instant::now();
    let seed = sub_seed(run_seed(), 7);
    const ROW: usize = NUM_KV_HEADS * HEAD_DIM;
    // seq0: 30 queries, 40 keys (a 10-key prefix); seq1: 25 queries, 25
    // keys of which the first 5 are seq0's; seq2: 6 queries, 3 keys.
    // Pages 63..70 are referenced by nobody.
    let s0: Vec<i32> = (0..40).rev().collect();
    let mut s1: Vec<i32> = s0[..5].to_vec();
    s1.extend(40..60);
    let w = workload(
        "nan-inf",
        70,
        &[(30, s0.clone()), (25, s1.clone()), (6, (60..63).collect())],
        default_sm_scale(),
    );
    let inputs = w.inputs(seed);
    let q_at = |t: usize, h: usize, d: usize| (t * NUM_QO_HEADS + h) * HEAD_DIM + d;
    let kv_at = |page: i32, g: usize, d: usize| page as usize * ROW + g * HEAD_DIM + d;
    // seq0 key 15: rows i >= 5 of seq0 see it (delta 10), rows 0..5 of the
    // same tile do not; seq1 does not reference it.
    let inf_page = s0[15];
    // seq1 key 10 (its own page): rows 10.. of seq1 see it.
    let nan_k_page = s1[10];

    type Edit = Box<dyn Fn(&mut [bf16], &mut [bf16], &mut [bf16])>;
    let nan_q: Edit = Box::new(move |q, _, _| q[q_at(7, 13, 100)] = bf16::NAN);
    let inf_v: Edit = Box::new(move |_, _, v| v[kv_at(inf_page, 2, 33)] = bf16::INFINITY);
    let nan_k: Edit = Box::new(move |_, k, _| k[kv_at(nan_k_page, 0, 5)] = bf16::NAN);
    let both: Edit = Box::new(move |q, _, v| {
        q[q_at(7, 13, 100)] = bf16::NAN;
        v[kv_at(inf_page, 2, 33)] = bf16::INFINITY;
    });
    let unread: Edit = Box::new(move |_, k, v| {
        for page in 63..70 {
            for g in 0..NUM_KV_HEADS {
                for d in 0..HEAD_DIM {
                    let x = if (d + g) % 2 == 0 {
                        bf16::NAN
                    } else {
                        bf16::INFINITY
                    };
                    k[kv_at(page, g, d)] = x;
                    v[kv_at(page, g, d)] = -x;
                }
            }
        }
    });
    // (label, edit, expect NaN in the CPU result, expect inf in it)
    let variants: [(&str, Edit, bool, bool); 5] = [
        ("NaN in q[token 7, head 13, dim 100]", nan_q, true, false),
        (
            "+inf in v[page of seq0 key 15, kv head 2, dim 33]",
            inf_v,
            false,
            true,
        ),
        (
            "NaN in k[page of seq1 key 10, kv head 0, dim 5]",
            nan_k,
            true,
            false,
        ),
        ("NaN in q and +inf in v together", both, true, true),
        ("NaN/inf in every unreferenced page", unread, false, false),
    ];
    let stream = own_stream(b);
    let mut failures = Vec::new();
    for (label, edit, want_nan, want_inf) in &variants {
        let (mut q, mut k, mut v) = (
            inputs.q.clone(),
            inputs.k_cache.clone(),
            inputs.v_cache.clone(),
        );
        edit(&mut q, &mut k, &mut v);
        let p = host_problem(&w, &q, &k, &v);
        let c = cpu::attention(&p).expect("cpu");
        let cpu_nan = c.out.iter().filter(|x| x.is_nan()).count()
            + c.lse.iter().filter(|x| x.is_nan()).count();
        let cpu_inf = c.out.iter().filter(|x| x.is_infinite()).count();
        assert_eq!(cpu_nan > 0, *want_nan, "{label}: CPU has {cpu_nan} NaN");
        assert_eq!(cpu_inf > 0, *want_inf, "{label}: CPU has {cpu_inf} inf");
        let mut bufs = DeviceBuffers::upload(b.kernel(), &stream, &p).unwrap();
        bufs.poison(&stream).unwrap();
        bufs.with_views(|dv, out, lse, ws| b.kernel().launch_checked(&stream, dv, out, lse, ws))
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let got = bufs.download(&stream).unwrap();
        // The GPU multiplies whole key blocks: an inf in a v row meets the
        // zero probability of rows of the same tile that the mask hides it
        // from, and 0 * inf is NaN. So in the inf-in-v variants, NaN is also
        // allowed in that one column (kv head 2's query heads 12..17, dim 33)
        // of seq0's rows (tokens 0..30); nowhere else (docs/INPUTS.md).
        let inf_in_v = label.contains("+inf in v");
        let tolerated = move |i: usize| {
            let (t, h, d) = (
                i / (NUM_QO_HEADS * HEAD_DIM),
                i / HEAD_DIM % NUM_QO_HEADS,
                i % HEAD_DIM,
            );
            inf_in_v && t < 30 && h / 6 == 2 && d == 33
        };
        let fails = compare_nonfinite(&got, &c, &tolerated);
        if !fails.is_empty() {
            failures.push(format!(
                "{label}: {} elements differ from the CPU (which has {cpu_nan} NaN, {cpu_inf} inf), first: {}",
                fails.len(),
                fails[..fails.len().min(6)].join("; ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "non-finite inputs (seed {seed}):\n{}",
        failures.join("\n")
    );
    println!(
        "nan_inf_inputs_propagate_like_cpu: ok, {} variants: NaN and inf exactly where the CPU has them; {:.1} s",
        variants.len(),
        t0.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------- 8. refused buffers

/// A `CudaSlice` over memory owned by another allocation (to build aliasing
/// and misaligned views); leaked on drop, never freed.
struct Alias<T>(Option<CudaSlice<T>>);

impl<T> Alias<T> {
    /// # Safety
    /// `ptr .. ptr + len * size_of::<T>()` must lie inside a live allocation
    /// that outlives this value.
    unsafe fn new(stream: &Arc<CudaStream>, ptr: u64, len: usize) -> Self {
        Alias(Some(stream.upgrade_device_ptr(ptr, len)))
    }
    fn get(&mut self) -> &mut CudaSlice<T> {
        self.0.as_mut().expect("alias present")
    }
}

impl<T> Drop for Alias<T> {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            let _ = s.leak();
        }
    }
}

fn ptr_of<T, B: DevicePtr<T>>(buf: &B, stream: &CudaStream) -> u64 {
    let (p, _g) = buf.device_ptr(stream);
    p
}

/// `launch`, `launch_checked` and `launch_reference` on the same call.
fn launch_all(
    k: &PagedPrefill,
    s: &Arc<CudaStream>,
    p: &DeviceProblem<'_>,
    out: &mut CudaViewMut<'_, bf16>,
    lse: &mut CudaViewMut<'_, f32>,
    ws: &mut Workspace,
) -> [Result<(), Error>; 3] {
    [
        k.launch(s, p, out, lse, ws),
        k.launch_checked(s, p, out, lse, ws),
        k.launch_reference(s, p, out, lse),
    ]
}

fn expect_refused(label: &str, got: [Result<(), Error>; 3], want: impl Fn(&Error) -> bool) {
    for (mode, r) in ["launch", "launch_checked", "launch_reference"]
        .iter()
        .zip(got)
    {
        match r {
            Err(e) if want(&e) => {}
            other => panic!("{label}: {mode} returned {other:?}"),
        }
    }
}

fn all_poison(o: &Output) -> bool {
    o.out.iter().all(|x| x.to_bits() == 0xffff) && o.lse.iter().all(|x| x.to_bits() == u32::MAX)
}

/// Device buffers the host can refuse without reading them: outputs that
/// overlap an input or each other (`Aliasing`), views not 16-byte (rows) or
/// 4-byte (index arrays, lse) aligned (`Misaligned`), every buffer one element
/// short or long and indptrs of the wrong length (`BufferLength`), the wrong
/// geometry (`UnsupportedGeometry`), counts beyond int32 (`TooLarge`) and a
/// non-finite `sm_scale` (`NonFiniteScale`). Each is refused by `launch`,
/// `launch_checked` and `launch_reference` alike, with nothing written; and
/// two look-alikes are accepted and computed correctly: views that are
/// offset but aligned, and an output that touches `q` without overlapping.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn output_aliasing_and_misalignment_refused() {
    let b = gpu!("output_aliasing_and_misalignment_refused");
    let t0 = Instant::now();
    let seed = sub_seed(run_seed(), 8);
    // 3 sequences of 21, 22, 43 tokens (86 pages).
    let w = workload(
        "refused",
        86,
        &[
            (21, (0..21).collect()),
            (22, (21..43).rev().collect()),
            (43, (43..86).collect()),
        ],
        default_sm_scale(),
    );
    let inputs = w.inputs(seed);
    let hp = inputs.problem();
    let reference = b.reference(&hp).expect("reference");
    let d = w.dims();
    let (nq, nk, nl, ni, nb) = (
        d.q_elems(),
        d.kv_elems(),
        d.lse_elems(),
        d.num_kv_indices,
        d.indptr_len(),
    );
    let s = own_stream(b);
    let k = b.kernel();
    let bufs = DeviceBuffers::upload(k, &s, &hp).unwrap();
    let mut ws = k.workspace(&s).unwrap();
    // Larger allocations to cut offset and longer views from.
    let mut big_q = s.alloc_zeros::<bf16>(2 * nq + 64).unwrap();
    s.memcpy_dtod(&bufs.q, &mut big_q.slice_mut(0..nq)).unwrap();
    let mut big_k = s.alloc_zeros::<bf16>(nk + 64).unwrap();
    s.memcpy_dtod(&bufs.k_cache, &mut big_k.slice_mut(0..nk))
        .unwrap();
    let mut big_v = s.alloc_zeros::<bf16>(nk + nq + 64).unwrap();
    s.memcpy_dtod(&bufs.v_cache, &mut big_v.slice_mut(0..nk))
        .unwrap();
    let mut big_idx = s.alloc_zeros::<i32>(ni + nl + 64).unwrap();
    s.memcpy_dtod(&bufs.kv_indices, &mut big_idx.slice_mut(0..ni))
        .unwrap();
    let mut big_qo = s.alloc_zeros::<i32>(nb + 64).unwrap();
    s.memcpy_dtod(&bufs.qo_indptr, &mut big_qo.slice_mut(0..nb))
        .unwrap();
    let mut out_big = s.alloc_zeros::<bf16>(nq + 64).unwrap();
    let mut lse_big = s.alloc_zeros::<f32>(nl + 64).unwrap();
    poison(&s, &mut out_big);
    poison(&s, &mut lse_big);

    let (qv, kc, vc) = (
        bufs.q.as_view(),
        bufs.k_cache.as_view(),
        bufs.v_cache.as_view(),
    );
    let (qo, kvp, idx) = (
        bufs.qo_indptr.as_view(),
        bufs.kv_indptr.as_view(),
        bufs.kv_indices.as_view(),
    );
    let base = DeviceProblem {
        dims: d,
        q: &qv,
        k_cache: &kc,
        v_cache: &vc,
        qo_indptr: &qo,
        kv_indptr: &kvp,
        kv_indices: &idx,
        sm_scale: w.sm_scale,
    };
    let mut refused = 0;
    // Runs the three launch modes on one bad call and checks the error. The
    // output views are made per call from the poisoned `out_big`/`lse_big`.
    macro_rules! refuse {
        ($label:expr, $p:expr, $out:expr, $lse:expr, $pat:pat $(if $guard:expr)?) => {{
            let r = launch_all(k, &s, $p, $out, $lse, &mut ws);
            expect_refused($label, r, |e| matches!(e, $pat $(if $guard)?));
            refused += 1;
        }};
    }
    macro_rules! out {
        () => {
            &mut out_big.slice_mut(0..nq)
        };
    }
    macro_rules! lse {
        () => {
            &mut lse_big.slice_mut(0..nl)
        };
    }

    // -- lengths
    let q_short = big_q.slice(0..nq - 1);
    refuse!("q one short", &DeviceProblem { q: &q_short, ..base }, out!(), lse!(),
        Error::BufferLength { name: "q", expected, got } if *expected == nq && *got == nq - 1);
    let q_long = big_q.slice(0..nq + 1);
    refuse!("q one long", &DeviceProblem { q: &q_long, ..base }, out!(), lse!(),
        Error::BufferLength { name: "q", got, .. } if *got == nq + 1);
    let k_long = big_k.slice(0..nk + 1);
    refuse!("k_cache one long", &DeviceProblem { k_cache: &k_long, ..base }, out!(), lse!(),
        Error::BufferLength { name: "k_cache", expected, got } if *expected == nk && *got == nk + 1);
    let v_short = bufs.v_cache.slice(0..nk - 1);
    refuse!("v_cache one short", &DeviceProblem { v_cache: &v_short, ..base }, out!(), lse!(),
        Error::BufferLength { name: "v_cache", got, .. } if *got == nk - 1);
    let idx_short = bufs.kv_indices.slice(0..ni - 1);
    refuse!("kv_indices one short", &DeviceProblem { kv_indices: &idx_short, ..base }, out!(), lse!(),
        Error::BufferLength { name: "kv_indices", expected, got } if *expected == ni && *got == ni - 1);
    let qo_empty = bufs.qo_indptr.slice(0..0);
    refuse!("qo_indptr empty", &DeviceProblem { qo_indptr: &qo_empty, ..base }, out!(), lse!(),
        Error::BufferLength { name: "qo_indptr", expected, got: 0 } if *expected == nb);
    let qo_long = big_qo.slice(0..nb + 1);
    refuse!("qo_indptr with batch + 2 entries", &DeviceProblem { qo_indptr: &qo_long, ..base }, out!(), lse!(),
        Error::BufferLength { name: "qo_indptr", got, .. } if *got == nb + 1);
    let kvp_short = bufs.kv_indptr.slice(0..nb - 1);
    refuse!("kv_indptr shorter than qo_indptr", &DeviceProblem { kv_indptr: &kvp_short, ..base }, out!(), lse!(),
        Error::BufferLength { name: "kv_indptr", expected, got } if *expected == nb && *got == nb - 1);
    refuse!("output one short", &base, &mut out_big.slice_mut(0..nq - 1), lse!(),
        Error::BufferLength { name: "output", expected, got } if *expected == nq && *got == nq - 1);
    refuse!("output one long", &base, &mut out_big.slice_mut(0..nq + 1), lse!(),
        Error::BufferLength { name: "output", got, .. } if *got == nq + 1);
    refuse!("lse one short", &base, out!(), &mut lse_big.slice_mut(0..nl - 1),
        Error::BufferLength { name: "lse", expected, got } if *expected == nl && *got == nl - 1);
    refuse!("lse one long", &base, out!(), &mut lse_big.slice_mut(0..nl + 1),
        Error::BufferLength { name: "lse", got, .. } if *got == nl + 1);

    // -- geometry, counts beyond int32, scale
    for (what, dims, expected, got) in [
        (
            "num_qo_heads",
            Dims {
                num_qo_heads: 32,
                ..d
            },
            24,
            32,
        ),
        (
            "num_kv_heads",
            Dims {
                num_kv_heads: 8,
                ..d
            },
            4,
            8,
        ),
        ("head_dim", Dims { head_dim: 64, ..d }, 128, 64),
        ("page_size", Dims { page_size: 16, ..d }, 1, 16),
    ] {
        refuse!(&format!("{what} = {got}"), &DeviceProblem { dims, ..base }, out!(), lse!(),
            Error::UnsupportedGeometry { what: w2, expected: e2, got: g2 }
                if *w2 == what && *e2 == expected && *g2 == got);
    }
    for (what, dims) in [
        (
            "total_q",
            Dims {
                total_q: 1 << 31,
                ..d
            },
        ),
        (
            "num_pages",
            Dims {
                num_pages: 1 << 31,
                ..d
            },
        ),
        (
            "batch",
            Dims {
                batch: 1 << 31,
                ..d
            },
        ),
        (
            "num_kv_indices",
            Dims {
                num_kv_indices: 1 << 31,
                ..d
            },
        ),
    ] {
        refuse!(&format!("{what} = 2^31"), &DeviceProblem { dims, ..base }, out!(), lse!(),
            Error::TooLarge { what: w2, value, limit }
                if *w2 == what && *value == 1 << 31 && *limit == i32::MAX as u128);
    }
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        refuse!(&format!("sm_scale {bad}"), &DeviceProblem { sm_scale: bad, ..base }, out!(), lse!(),
            Error::NonFiniteScale(x) if x.to_bits() == bad.to_bits());
    }

    // -- alignment: 16 B for q, k_cache, v_cache, output; 4 B for index arrays and lse
    let q_ptr = ptr_of(&big_q, &s);
    for off in [1usize, 4] {
        let qm = big_q.slice(off..off + nq);
        refuse!(&format!("q at +{} bytes", 2 * off), &DeviceProblem { q: &qm, ..base }, out!(), lse!(),
            Error::Misaligned { name: "q", addr, align: 16 } if *addr == q_ptr + 2 * off as u64);
    }
    let km = big_k.slice(1..1 + nk);
    refuse!(
        "k_cache at +2 bytes",
        &DeviceProblem {
            k_cache: &km,
            ..base
        },
        out!(),
        lse!(),
        Error::Misaligned {
            name: "k_cache",
            align: 16,
            ..
        }
    );
    let vm = big_v.slice(4..4 + nk);
    refuse!(
        "v_cache at +8 bytes",
        &DeviceProblem {
            v_cache: &vm,
            ..base
        },
        out!(),
        lse!(),
        Error::Misaligned {
            name: "v_cache",
            align: 16,
            ..
        }
    );
    refuse!(
        "output at +2 bytes",
        &base,
        &mut out_big.slice_mut(1..1 + nq),
        lse!(),
        Error::Misaligned {
            name: "output",
            align: 16,
            ..
        }
    );
    let idx_ptr = ptr_of(&big_idx, &s);
    // SAFETY (every Alias below): the range lies inside the named allocation,
    // which outlives the alias (declared earlier, dropped later).
    let mut idx_m = unsafe { Alias::<i32>::new(&s, idx_ptr + 2, ni) };
    let idx_mv = idx_m.get().as_view();
    refuse!("kv_indices at +2 bytes", &DeviceProblem { kv_indices: &idx_mv, ..base }, out!(), lse!(),
        Error::Misaligned { name: "kv_indices", align: 4, addr } if *addr == idx_ptr + 2);
    let qo_ptr = ptr_of(&big_qo, &s);
    let mut qo_m = unsafe { Alias::<i32>::new(&s, qo_ptr + 2, nb) };
    let qo_mv = qo_m.get().as_view();
    refuse!(
        "qo_indptr at +2 bytes",
        &DeviceProblem {
            qo_indptr: &qo_mv,
            ..base
        },
        out!(),
        lse!(),
        Error::Misaligned {
            name: "qo_indptr",
            align: 4,
            ..
        }
    );
    let lse_ptr = ptr_of(&lse_big, &s);
    let mut lse_m = unsafe { Alias::<f32>::new(&s, lse_ptr + 2, nl) };
    refuse!(
        "lse at +2 bytes",
        &base,
        out!(),
        &mut lse_m.get().as_view_mut(),
        Error::Misaligned {
            name: "lse",
            align: 4,
            ..
        }
    );

    // -- aliasing
    let mut out_is_q = unsafe { Alias::<bf16>::new(&s, ptr_of(&bufs.q, &s), nq) };
    refuse!(
        "output == q",
        &base,
        &mut out_is_q.get().as_view_mut(),
        lse!(),
        Error::Aliasing {
            a: "output",
            b: "q"
        }
    );
    // q = big_q[0..nq]; output = big_q[nq-8 .. 2nq-8]: 16 bytes overlap.
    let qs = big_q.slice(0..nq);
    let mut out_tail = unsafe { Alias::<bf16>::new(&s, q_ptr + 2 * (nq as u64 - 8), nq) };
    refuse!(
        "output overlapping the end of q",
        &DeviceProblem { q: &qs, ..base },
        &mut out_tail.get().as_view_mut(),
        lse!(),
        Error::Aliasing {
            a: "output",
            b: "q"
        }
    );
    // v_cache = big_v[0..nk]; output starts 8 elements before its end.
    let vs = big_v.slice(0..nk);
    let v_ptr = ptr_of(&big_v, &s);
    let mut out_v = unsafe { Alias::<bf16>::new(&s, v_ptr + 2 * (nk as u64 - 8), nq) };
    refuse!(
        "output overlapping v_cache",
        &DeviceProblem {
            v_cache: &vs,
            ..base
        },
        &mut out_v.get().as_view_mut(),
        lse!(),
        Error::Aliasing {
            a: "output",
            b: "v_cache"
        }
    );
    // kv_indices = big_idx[0..ni]; lse starts on its last entry.
    let is = big_idx.slice(0..ni);
    let mut lse_idx = unsafe { Alias::<f32>::new(&s, idx_ptr + 4 * (ni as u64 - 1), nl) };
    refuse!(
        "lse overlapping kv_indices",
        &DeviceProblem {
            kv_indices: &is,
            ..base
        },
        out!(),
        &mut lse_idx.get().as_view_mut(),
        Error::Aliasing {
            a: "lse",
            b: "kv_indices"
        }
    );
    // lse inside the output buffer, 16 bytes in.
    let out_ptr = ptr_of(&out_big, &s);
    let mut lse_in_out = unsafe { Alias::<f32>::new(&s, out_ptr + 16, nl) };
    refuse!(
        "lse inside output",
        &base,
        out!(),
        &mut lse_in_out.get().as_view_mut(),
        Error::Aliasing {
            a: "output",
            b: "lse"
        } | Error::Aliasing {
            a: "lse",
            b: "output"
        }
    );

    // Nothing was written by any refused call.
    let canary = download(&s, &out_big, &lse_big).unwrap();
    assert!(
        all_poison(&canary),
        "a refused call wrote into its output buffers"
    );

    // -- look-alikes that are valid. An output right after q in the same
    // allocation (touching, not overlapping): q = big_q[0..nq] holds q.
    let mut out_next = unsafe { Alias::<bf16>::new(&s, q_ptr + 2 * nq as u64, nq) };
    poison(&s, out_next.get());
    k.launch_checked(
        &s,
        &DeviceProblem { q: &qs, ..base },
        &mut out_next.get().as_view_mut(),
        lse!(),
        &mut ws,
    )
    .expect("an output right after q (no overlap) is accepted");
    let got = Output {
        out: s.clone_dtoh(out_next.get()).unwrap(),
        lse: s.clone_dtoh(&lse_big.slice(0..nl)).unwrap(),
    };
    s.synchronize().unwrap();
    assert_close("output adjacent to q", &got, &reference);
    // Views offset by 16 bytes (q, output) and 4 bytes (lse): aligned.
    s.memcpy_dtod(&bufs.q, &mut big_q.slice_mut(8..8 + nq))
        .unwrap();
    poison(&s, &mut out_big);
    poison(&s, &mut lse_big);
    let q8 = big_q.slice(8..8 + nq);
    k.launch_checked(
        &s,
        &DeviceProblem { q: &q8, ..base },
        &mut out_big.slice_mut(8..8 + nq),
        &mut lse_big.slice_mut(1..1 + nl),
        &mut ws,
    )
    .expect("views offset by 16 bytes (q, output) and 4 bytes (lse) are accepted");
    let got = Output {
        out: s.clone_dtoh(&out_big.slice(8..8 + nq)).unwrap(),
        lse: s.clone_dtoh(&lse_big.slice(1..1 + nl)).unwrap(),
    };
    s.synchronize().unwrap();
    assert_close("aligned offset views", &got, &reference);
    println!(
        "output_aliasing_and_misalignment_refused: ok, {refused} bad calls refused with the expected \
         error by launch, launch_checked and launch_reference, nothing written; 2 valid look-alikes \
         (output right after q, offset aligned views) accepted and correct; {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

/// A call larger than the device's free memory is refused by
/// `DeviceBuffers` with a typed error before anything is allocated (sizes
/// checked without host buffers: 900M pages, 0.9 TB per cache).
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn device_memory_refused_before_allocating() {
    let b = gpu!("device_memory_refused_before_allocating");
    let s = own_stream(b);
    let (free_before, _) = b.kernel().context().mem_get_info().unwrap();
    let huge = Dims::new(1, 900_000_000, 1, 1);
    match DeviceBuffers::check_fits(b.kernel(), &s, &huge) {
        Err(Error::InsufficientMemory {
            what: "device",
            needed,
            available,
        }) => assert!(needed > available, "{needed} vs {available}"),
        other => panic!("expected InsufficientMemory, got {other:?}"),
    }
    let (free_after, _) = b.kernel().context().mem_get_info().unwrap();
    assert!(
        free_after + (64 << 20) >= free_before,
        "something was allocated"
    );
    DeviceBuffers::check_fits(b.kernel(), &s, &Dims::new(100, 100, 1, 100))
        .expect("a small call fits");
    println!("device_memory_refused_before_allocating: ok");
}

// ---------------------------------------------------------------- 9. empty calls

/// Calls with nothing to compute: batch 0 (with and without pages), total_q 0
/// with sequences that only have keys (the grid is not empty then: the kernel
/// runs and must write nothing), sequences with neither. `launch`,
/// `launch_checked` (no device error) and `launch_reference` return Ok, and
/// zero-length output views at the start of poisoned buffers leave them
/// untouched; the same through `DeviceBuffers`.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn empty_calls() {
    let b = gpu!("empty_calls");
    let t0 = Instant::now();
    let seed = sub_seed(run_seed(), 9);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let many: Vec<(usize, Vec<i32>)> = (0..300)
        .map(|_| {
            let n = rng.gen_range(0..200);
            (0, (0..n).map(|_| rng.gen_range(0..500)).collect())
        })
        .collect();
    let cases = [
        workload("batch-0", 0, &[], default_sm_scale()),
        workload("batch-0-with-pages", 5, &[], default_sm_scale()),
        workload(
            "no-queries",
            6,
            &[(0, (0..3).collect()), (0, (3..6).collect())],
            default_sm_scale(),
        ),
        workload(
            "empty-sequences",
            0,
            &[(0, vec![]), (0, vec![]), (0, vec![])],
            default_sm_scale(),
        ),
        workload("300-sequences-keys-only", 500, &many, default_sm_scale()),
    ];
    let s = own_stream(b);
    let k = b.kernel();
    let mut out_c = s.alloc_zeros::<bf16>(NUM_QO_HEADS * HEAD_DIM * 64).unwrap();
    let mut lse_c = s.alloc_zeros::<f32>(NUM_QO_HEADS * 64).unwrap();
    for w in &cases {
        let inputs = w.inputs(seed);
        let mut bufs = DeviceBuffers::upload(k, &s, &inputs.problem()).unwrap();
        poison(&s, &mut out_c);
        poison(&s, &mut lse_c);
        bufs.poison(&s).unwrap();
        let results = bufs.with_views(|v, _, _, ws| {
            let mut o = out_c.slice_mut(0..0);
            let mut l = lse_c.slice_mut(0..0);
            launch_all(k, &s, v, &mut o, &mut l, ws)
        });
        for (mode, r) in ["launch", "launch_checked", "launch_reference"]
            .iter()
            .zip(results)
        {
            assert!(r.is_ok(), "{}: {mode} returned {r:?}", w.name);
        }
        bufs.with_views(|v, out, lse, ws| k.launch_checked(&s, v, out, lse, ws))
            .unwrap_or_else(|e| panic!("{}: DeviceBuffers launch_checked: {e}", w.name));
        k.take_device_errors(&s, &mut bufs.workspace)
            .unwrap_or_else(|e| panic!("{}: device error flag: {e}", w.name));
        let o = bufs.download(&s).unwrap();
        assert!(o.out.is_empty() && o.lse.is_empty(), "{}", w.name);
        let canary = download(&s, &out_c, &lse_c).unwrap();
        assert!(
            all_poison(&canary),
            "{}: an empty call wrote into memory after its zero-length outputs",
            w.name
        );
        let own = download(&s, &bufs.out, &bufs.lse).unwrap();
        assert!(
            all_poison(&own),
            "{}: an empty call wrote into its (1-element) output allocation",
            w.name
        );
    }
    println!(
        "empty_calls: ok, {} cases (batch 0, total_q 0 with keys, empty sequences): Ok from every \
         launch mode, nothing written; {:.1} s",
        cases.len(),
        t0.elapsed().as_secs_f64()
    );
}
