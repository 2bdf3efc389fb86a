//! GPU tests of the CUDA backend. They need a Hopper GPU and are `#[ignore]`d,
//! so that `cargo test` elsewhere reports them as ignored; on the GPU machine
//! run them with `cargo test --release -p pagedattn --test gpu -- --ignored`,
//! or the binary from `scripts/dist.sh` with `--ignored` (docs/DEVELOPING.md).
//!
//! Every run draws fresh random inputs (the seed is printed so a failure can
//! be replayed with PAGEDATTN_TEST_SEED=<seed>); outputs are poisoned with NaN
//! before every launch, so an unwritten element fails the check.

mod common;

use std::sync::Arc;

use common::run_seed;

use pagedattn::backend::cpu;
use pagedattn::check::compare;
use pagedattn::problem::{default_sm_scale, HostProblem, Output};
use pagedattn::schedule::{SplitPolicy, TileConfig};
use pagedattn::units::{merge_slots, PlanInputs, UnitPlan, MAX_CHUNKS, SPREAD_MERGE_MIN_CHUNKS};
use pagedattn::Error;
use pagedattn::{CudaBackend, DeviceBuffers, DevicePlan, Options};
use pagedattn_cli::generate::{edge_cases, from_sequences, random_batch, BatchSpec};
use pagedattn_cli::workload::{embedded_scale, embedded_seed, Workload};

/// Runs the fast kernel (checked mode, poisoned outputs).
fn run_fast(b: &CudaBackend, p: &HostProblem<'_>) -> Result<Output, Error> {
    let stream = b.stream();
    let mut bufs = DeviceBuffers::upload(b.kernel(), stream, p)?;
    bufs.poison(stream)?;
    bufs.with_views(|v, out, lse, ws| b.kernel().launch_checked(stream, v, out, lse, ws))?;
    bufs.download(stream)
}

/// A backend with the tile configuration and split policy forced.
fn backend_with(tile: TileConfig, split: SplitPolicy) -> CudaBackend {
    let mut b = CudaBackend::new().expect("backend");
    b.set_options(Options {
        tile: Some(tile),
        split,
        ..Default::default()
    })
    .expect("options");
    b
}

fn assert_close(name: &str, got: &Output, reference: &Output) -> (f64, f64) {
    let rep = compare(got, reference);
    assert!(
        rep.ok(),
        "{name}: output differs from the reference beyond the SPEC.md bound: {rep:?}"
    );
    (rep.max_abs_out, rep.max_abs_lse)
}

#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn reference_kernel_matches_cpu() {
    let b = gpu!("reference_kernel_matches_cpu");
    let seed = run_seed();
    let mut cases = edge_cases();
    for i in 0..10 {
        cases.push(random_batch(
            seed ^ (0x100 + i),
            &BatchSpec {
                max_q_len: 200,
                max_extra_kv: 100,
                ..Default::default()
            },
        ));
    }
    for w in &cases {
        let inputs = w.inputs(seed);
        let p = inputs.problem();
        let r = b.reference(&p).expect("reference kernel");
        let c = cpu::attention(&p).expect("cpu");
        assert_close(&format!("reference vs cpu on {}", w.name), &r, &c);
    }
    println!("reference kernel vs CPU: {} cases ok", cases.len());
}

#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn fast_kernel_edge_cases_match_cpu() {
    let b = gpu!("fast_kernel_edge_cases_match_cpu");
    let seed = run_seed();
    let mut cases = edge_cases();
    for i in 0..40 {
        let spec = BatchSpec {
            max_batch: 8,
            max_q_len: 300,
            max_extra_kv: 300,
            ..Default::default()
        };
        cases.push(random_batch(seed ^ (0x200 + i), &spec));
    }
    let (mut wo, mut wl) = (0f64, 0f64);
    for w in &cases {
        let inputs = w.inputs(seed);
        let p = inputs.problem();
        let got = run_fast(b, &p).unwrap_or_else(|e| panic!("{}: {e}", w.name));
        let c = cpu::attention(&p).expect("cpu");
        let (o, l) = assert_close(&w.name, &got, &c);
        wo = wo.max(o);
        wl = wl.max(l);
    }
    println!(
        "fast kernel vs CPU: {} edge/random cases ok (max abs err out {wo:.2e}, lse {wl:.2e})",
        cases.len()
    );
}

/// At least 200 generated batches: 1..300 sequences of 0..700 tokens, kv_len
/// above and below q_len, shuffled and repeated pages.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn fast_kernel_random_batches_match_reference() {
    let b = gpu!("fast_kernel_random_batches_match_reference");
    let seed = run_seed();
    let n = common::env_u64("PAGEDATTN_GPU_BATCHES").unwrap_or(200);
    let (mut wo, mut wl, mut tokens) = (0f64, 0f64, 0usize);
    for i in 0..n {
        // Log-uniform batch size; lengths shrink with the batch so a case
        // stays a few tens of thousands of tokens.
        let s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i);
        let batch = (300f64.powf((s % 1000) as f64 / 999.0)).round().max(1.0) as usize;
        let max_q = (20_000 / batch).clamp(1, 700);
        let spec = BatchSpec {
            max_batch: batch,
            exact_batch: true,
            max_q_len: max_q,
            max_extra_kv: max_q,
            max_spare_pages: 64,
            ..Default::default()
        };
        let w = random_batch(s, &spec);
        tokens += w.total_q;
        let inputs = w.inputs(seed);
        let p = inputs.problem();
        let got = run_fast(b, &p).unwrap_or_else(|e| panic!("batch {i} ({}): {e}", w.name));
        let r = b.reference(&p).expect("reference");
        let (o, l) = assert_close(
            &format!("batch {i} ({}, {} seqs)", w.name, w.batch()),
            &got,
            &r,
        );
        wo = wo.max(o);
        wl = wl.max(l);
    }
    println!("fast kernel vs GPU reference: {n} random batches ok, {tokens} tokens (max abs err out {wo:.2e}, lse {wl:.2e})");
}

fn check_workloads(b: &CudaBackend, ws: &[Workload], label: &str) {
    let seed = run_seed();
    for w in ws {
        let inputs = w.inputs(seed);
        let p = inputs.problem();
        let got = run_fast(b, &p).unwrap_or_else(|e| panic!("{}: {e}", w.name));
        let r = b.reference(&p).expect("reference");
        let (o, l) = assert_close(&w.name, &got, &r);
        println!(
            "{label} {:<22} ok  max abs err out {o:.2e} lse {l:.2e}",
            w.name
        );
    }
}

#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn seed_workloads_match_reference() {
    let b = gpu!("seed_workloads_match_reference");
    check_workloads(b, &embedded_seed().unwrap(), "seed");
}

#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn scale_workloads_match_reference() {
    let b = gpu!("scale_workloads_match_reference");
    check_workloads(b, &embedded_scale().unwrap(), "scale");
}

/// Same inputs give bitwise the same output: 100 repeats, and eager launches
/// against graph replays.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn deterministic_and_graph_replay_equal() {
    let b = gpu!("deterministic_and_graph_replay_equal");
    let seed = run_seed();
    let w = &embedded_seed().unwrap()[12]; // 45 sequences
    let inputs = w.inputs(seed);
    let p = inputs.problem();
    let first = run_fast(b, &p).unwrap();
    let stream: &Arc<_> = b.stream();
    let mut bufs = DeviceBuffers::upload(b.kernel(), stream, &p).unwrap();
    for i in 0..100 {
        bufs.poison(stream).unwrap();
        bufs.with_views(|v, out, lse, ws| b.kernel().launch(stream, v, out, lse, ws))
            .unwrap();
        let o = bufs.download(stream).unwrap();
        assert!(
            o.out
                .iter()
                .zip(&first.out)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "repeat {i} differs"
        );
        assert!(
            o.lse
                .iter()
                .zip(&first.lse)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "repeat {i} lse differs"
        );
    }
    // Graph replay, with new indptr contents between replays.
    bufs.poison(stream).unwrap();
    stream
        .begin_capture(
            pagedattn::cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        )
        .unwrap();
    bufs.with_views(|v, out, lse, ws| b.kernel().launch(stream, v, out, lse, ws))
        .unwrap();
    let graph = stream
        .end_capture(pagedattn::cudarc::driver::sys::CUgraphInstantiate_flags(0))
        .unwrap()
        .unwrap();
    graph.launch().unwrap();
    let o = bufs.download(stream).unwrap();
    assert!(
        o.out
            .iter()
            .zip(&first.out)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "graph replay differs"
    );
    assert!(
        o.lse
            .iter()
            .zip(&first.lse)
            .all(|(a, b)| a.to_bits() == b.to_bits()),
        "graph replay lse differs"
    );
    // Replay with other sequence boundaries (same total_q and batch): the grid
    // does not depend on them, so the graph stays valid.
    let mut w2 = w.clone();
    let nb = w2.batch();
    let mut qo: Vec<i32> = (0..=nb).map(|i| (i * w.total_q / nb) as i32).collect();
    qo[nb] = w.total_q as i32;
    w2.qo_indptr = qo.clone();
    w2.kv_indptr = qo;
    w2.kv_indices = (0..w.total_q as i32)
        .map(|x| x % w.num_pages as i32)
        .collect();
    if w2.kv_indices.len() == w.kv_indices.len() {
        let inputs2 = Workload { ..w2.clone() }.inputs(seed);
        let p2 = HostProblem {
            q: &inputs.q,
            k_cache: &inputs.k_cache,
            v_cache: &inputs.v_cache,
            ..inputs2.problem()
        };
        stream
            .memcpy_htod(&w2.qo_indptr, &mut bufs.qo_indptr)
            .unwrap();
        stream
            .memcpy_htod(&w2.kv_indptr, &mut bufs.kv_indptr)
            .unwrap();
        stream
            .memcpy_htod(&w2.kv_indices, &mut bufs.kv_indices)
            .unwrap();
        bufs.poison(stream).unwrap();
        graph.launch().unwrap();
        let o2 = bufs.download(stream).unwrap();
        let r2 = b.reference(&p2).unwrap();
        assert_close("graph replay with new indptrs", &o2, &r2);
    }
    println!(
        "determinism: 100 repeats bitwise equal; graph replay equal; replay with new indptrs ok"
    );
}

/// Page ids outside [0, num_pages) in device memory: never dereferenced;
/// the checked mode reports them.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn bad_page_ids_in_device_memory_are_reported() {
    let b = gpu!("bad_page_ids_in_device_memory_are_reported");
    let seed = run_seed();
    let w = &embedded_seed().unwrap()[1];
    let inputs = w.inputs(seed);
    for bad in [-1i32, w.num_pages as i32, i32::MAX, i32::MIN] {
        let mut idx = inputs.kv_indices.clone();
        idx[3] = bad;
        let stream = b.stream();
        let mut bufs = DeviceBuffers::upload(b.kernel(), stream, &inputs.problem()).unwrap();
        stream.memcpy_htod(&idx, &mut bufs.kv_indices).unwrap();
        bufs.poison(stream).unwrap();
        let r =
            bufs.with_views(|v, out, lse, ws| b.kernel().launch_checked(stream, v, out, lse, ws));
        assert!(
            matches!(r, Err(Error::DeviceIndexData(_))),
            "page id {bad}: expected DeviceIndexData, got {r:?}"
        );
        // Unchecked launches also never fault; the flag is kept for later.
        bufs.with_views(|v, out, lse, ws| b.kernel().launch(stream, v, out, lse, ws))
            .unwrap();
        assert!(matches!(
            b.kernel().take_device_errors(stream, &mut bufs.workspace),
            Err(Error::DeviceIndexData(_))
        ));
        assert!(
            b.kernel()
                .take_device_errors(stream, &mut bufs.workspace)
                .is_ok(),
            "flag not cleared"
        );
    }
    println!("bad page ids in device memory: reported, no fault");
}

/// Bad indptr contents in device memory: reported, never dereferenced.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn bad_indptrs_in_device_memory_are_reported() {
    let b = gpu!("bad_indptrs_in_device_memory_are_reported");
    let seed = run_seed();
    let w = &embedded_seed().unwrap()[5]; // 9 sequences
    let inputs = w.inputs(seed);
    let n = w.qo_indptr.len();
    let variants: Vec<(&str, Vec<i32>, Vec<i32>)> = vec![
        (
            "qo decreasing",
            {
                let mut q = w.qo_indptr.clone();
                q[2] = q[1] - 1;
                q
            },
            w.kv_indptr.clone(),
        ),
        (
            "qo past total_q",
            {
                let mut q = w.qo_indptr.clone();
                q[n - 2] = w.total_q as i32 + 100;
                q
            },
            w.kv_indptr.clone(),
        ),
        (
            "qo first not 0",
            {
                let mut q = w.qo_indptr.clone();
                q[0] = 5;
                q
            },
            w.kv_indptr.clone(),
        ),
        ("kv negative", w.qo_indptr.clone(), {
            let mut k = w.kv_indptr.clone();
            k[1] = -7;
            k
        }),
        ("kv past end", w.qo_indptr.clone(), {
            let mut k = w.kv_indptr.clone();
            k[n - 1] = i32::MAX;
            k
        }),
    ];
    let stream = b.stream();
    for (what, qo, kv) in variants {
        let mut bufs = DeviceBuffers::upload(b.kernel(), stream, &inputs.problem()).unwrap();
        stream.memcpy_htod(&qo, &mut bufs.qo_indptr).unwrap();
        stream.memcpy_htod(&kv, &mut bufs.kv_indptr).unwrap();
        bufs.poison(stream).unwrap();
        let r =
            bufs.with_views(|v, out, lse, ws| b.kernel().launch_checked(stream, v, out, lse, ws));
        assert!(
            matches!(r, Err(Error::DeviceIndexData(_))),
            "{what}: expected DeviceIndexData, got {r:?}"
        );
    }
    println!("bad indptrs in device memory: reported, no fault");
}

/// Every tile configuration, forced, on random batches and a few seed
/// workloads (the per-call choice only picks between them).
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn both_tile_configs_match_reference() {
    let _ = gpu!("both_tile_configs_match_reference");
    let seed = run_seed();
    let seeds = embedded_seed().unwrap();
    for config in TileConfig::ALL {
        let mut b = CudaBackend::new().expect("backend");
        b.set_options(Options {
            tile: Some(config),
            ..Default::default()
        })
        .expect("options");
        let mut cases: Vec<Workload> = [0usize, 2, 9, 12, 18]
            .iter()
            .map(|&i| seeds[i].clone())
            .collect();
        for i in 0..60u64 {
            let spec = BatchSpec {
                max_batch: 40,
                max_q_len: 300,
                max_extra_kv: 300,
                max_spare_pages: 32,
                ..Default::default()
            };
            cases.push(random_batch(seed ^ (0x300 + i), &spec));
        }
        for w in &cases {
            let inputs = w.inputs(seed);
            let p = inputs.problem();
            let got = run_fast(&b, &p).unwrap_or_else(|e| panic!("{config:?} {}: {e}", w.name));
            let r = b.reference(&p).expect("reference");
            assert_close(&format!("{config:?} {}", w.name), &got, &r);
        }
        println!("tile config {config:?}: {} cases ok", cases.len());
    }
}

/// Plans on the host, then runs the planned launch (poisoned outputs,
/// device errors read back).
fn run_planned(b: &CudaBackend, p: &HostProblem<'_>) -> Result<(Output, bool), Error> {
    let (out, image, _, _) = run_planned_config(b, p)?;
    Ok((out, image))
}

/// The plan of `p`'s call on `b`'s stream, with its page ids (a plan image
/// where the configuration can hold one).
fn plan_with_ids(b: &CudaBackend, p: &HostProblem<'_>) -> Result<DevicePlan, Error> {
    b.kernel().plan(
        b.stream(),
        &p.dims,
        p.qo_indptr,
        p.kv_indptr,
        Some(p.kv_indices),
    )
}

/// [`run_planned`], also returning the tile configuration the plan chose
/// and whether its launch is direct where the shapes alone would take the
/// persistent grid (a plan that splits nothing, `units::planned_launch`).
fn run_planned_config(
    b: &CudaBackend,
    p: &HostProblem<'_>,
) -> Result<(Output, bool, TileConfig, bool), Error> {
    let stream = b.stream();
    let plan = plan_with_ids(b, p)?;
    let mut bufs = DeviceBuffers::upload(b.kernel(), stream, p)?;
    bufs.poison(stream)?;
    bufs.with_views(|v, out, lse, ws| b.kernel().launch_planned(&plan, stream, v, out, lse, ws))?;
    b.kernel().take_device_errors(stream, &mut bufs.workspace)?;
    let shape = b.kernel().launch_info(&p.dims, None);
    let planned = b.kernel().launch_info(&p.dims, Some(&plan));
    let to_direct = match (shape, planned) {
        (Some(s), Some(l)) => l.direct && !s.direct && s.config == l.config,
        _ => false,
    };
    Ok((
        bufs.download(stream)?,
        plan.has_image(),
        plan.config(),
        to_direct,
    ))
}

/// The host-plan path (`plan` + `launch_planned`): the kernel copies the
/// unit plan made on the host instead of building it, so every call gives
/// the same bits as the device-planned launch of the same tile configuration
/// (the host plan chooses it from the real sequence lengths, the device
/// launch from `total_q / batch` and `num_kv_indices / batch`, so with empty
/// sequences or spare page ids the two may differ), with the automatic split
/// and forced splits in every configuration, on seed workloads, edge cases and
/// random batches (cached prefixes, empty sequences, up to 300 sequences);
/// graph replays of a planned launch are equal too, and a plan for other
/// dimensions or from another `PagedPrefill` is refused. Batches of up to
/// `units::INLINE_PLAN_MAX_BATCH` sequences carry their plan in the kernel's
/// parameters, direct calls too (their units then run in the plan's order
/// instead of the fixed one: the same bits).
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn host_plan_launch_matches_device_plan() {
    let _ = gpu!("host_plan_launch_matches_device_plan");
    let seed = run_seed();
    let seeds = embedded_seed().unwrap();
    let mut cases: Vec<Workload> = [2usize, 5, 9, 11, 12, 16, 18]
        .iter()
        .map(|&i| seeds[i].clone())
        .collect();
    cases.extend(edge_cases());
    // Empty sequences: the device launch takes m64 (150 keys per sequence on
    // average), the host plan m128 (200 queries over 600 keys).
    let pages: Vec<i32> = (0..600).rev().collect();
    cases.push(from_sequences(
        "host-m128-device-m64",
        600,
        &[(0, vec![]), (200, pages), (0, vec![]), (0, vec![])],
        default_sm_scale(),
    ));
    // m64's spread fine split: chunks of one or two blocks (the `plans`
    // example: 15, 8 and 12 chunks a tile).
    cases.push(from_sequences(
        "spread-fine-1x9-912",
        1000,
        &[(9, (0..912).rev().collect())],
        default_sm_scale(),
    ));
    cases.push(from_sequences(
        "spread-fine-1x14-487",
        600,
        &[(14, (0..487).collect())],
        default_sm_scale(),
    ));
    cases.push(from_sequences(
        "spread-fine-2x3-1500",
        3100,
        &[(3, (0..1500).collect()), (3, (1500..3000).rev().collect())],
        default_sm_scale(),
    ));
    for i in 0..24u64 {
        let spec = BatchSpec {
            max_batch: [4, 40, 300][i as usize % 3],
            max_q_len: if i % 3 == 2 { 60 } else { 400 },
            max_extra_kv: if i % 2 == 0 { 3000 } else { 50 },
            max_spare_pages: 32,
            ..Default::default()
        };
        cases.push(random_batch(seed ^ (0x900 + i), &spec));
    }
    let (mut calls, mut with_image, mut made_direct) = (0, 0, 0);
    let backend = |tile, split| {
        let mut b = CudaBackend::new().expect("backend");
        b.set_options(Options {
            tile,
            split,
            ..Default::default()
        })
        .expect("options");
        b
    };
    // The automatic tile choice's device launch, per configuration.
    let forced = TileConfig::ALL.map(|c| (c, backend(Some(c), SplitPolicy::Auto)));
    let mut other_config = 0;
    for (tile, split) in [
        (None, SplitPolicy::Auto),
        (Some(TileConfig::M64), SplitPolicy::Blocks(2)),
        (Some(TileConfig::M128), SplitPolicy::Blocks(3)),
        (Some(TileConfig::M128Deep), SplitPolicy::Blocks(3)),
        (Some(TileConfig::M128DeepV), SplitPolicy::Blocks(3)),
        (Some(TileConfig::M192), SplitPolicy::Blocks(3)),
    ] {
        let b = backend(tile, split);
        for (i, w) in cases.iter().enumerate() {
            let inputs = w.inputs(seed);
            let p = inputs.problem();
            let name = format!("{tile:?} {split:?} {}", w.name);
            let (host, image, config, to_direct) =
                run_planned_config(&b, &p).unwrap_or_else(|e| panic!("{name}: {e}"));
            made_direct += usize::from(to_direct);
            let device_b = if b.kernel().config_for(&p.dims) == config {
                &b
            } else {
                assert!(tile.is_none(), "{name}: a forced tile is the plan's");
                other_config += 1;
                &forced
                    .iter()
                    .find(|(c, _)| *c == config)
                    .expect("every configuration")
                    .1
            };
            let device = run_fast(device_b, &p).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                bitwise_eq(&host, &device),
                "{name}: planned launch ({config:?}) differs"
            );
            if i % 4 == 0 {
                let r = b.reference(&p).expect("reference");
                assert_close(&name, &host, &r);
            }
            calls += 1;
            with_image += usize::from(image);
        }
    }
    // seed05 with m64 in chunks of 2 blocks, for one (the plans example).
    assert!(made_direct > 0, "no plan made a persistent call direct");
    // Graph replays of a planned launch, and refused plans.
    let b = gpu!("host_plan_launch_matches_device_plan");
    let stream: &Arc<_> = b.stream();
    // seed18's 124 sequences get a plan image in the configurations the
    // automatic choice takes for them; a forced one whose plans hold 64
    // sequences (PAGEDATTN_TILE=m128d, m128dv) replays seed17's 29 instead.
    let has_image = |i: usize| {
        let inputs = seeds[i].inputs(seed);
        plan_with_ids(b, &inputs.problem()).unwrap().has_image()
    };
    let (main_seed, other_seed) = if has_image(18) { (18, 17) } else { (17, 18) };
    let inputs = seeds[main_seed].inputs(seed);
    let p = inputs.problem();
    let (first, _) = run_planned(b, &p).unwrap();
    let plan = plan_with_ids(b, &p).unwrap();
    assert!(plan.has_image());
    let mut bufs = DeviceBuffers::upload(b.kernel(), stream, &p).unwrap();
    stream
        .begin_capture(
            cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        )
        .unwrap();
    bufs.with_views(|v, out, lse, ws| b.kernel().launch_planned(&plan, stream, v, out, lse, ws))
        .unwrap();
    let graph = stream
        .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0))
        .unwrap()
        .unwrap();
    for i in 0..5 {
        bufs.poison(stream).unwrap();
        graph.launch().unwrap();
        let o = bufs.download(stream).unwrap();
        assert!(bitwise_eq(&o, &first), "planned graph replay {i} differs");
    }
    let other_inputs = seeds[other_seed].inputs(seed);
    let op = other_inputs.problem();
    let other = b
        .kernel()
        .plan(stream, &op.dims, op.qo_indptr, op.kv_indptr, None)
        .unwrap();
    let e = bufs
        .with_views(|v, out, lse, ws| b.kernel().launch_planned(&other, stream, v, out, lse, ws));
    assert!(matches!(e, Err(Error::PlanMismatch(_))), "{e:?}");
    let mut forced = CudaBackend::new().expect("backend");
    forced
        .set_options(Options {
            split: SplitPolicy::Blocks(2),
            ..Default::default()
        })
        .expect("options");
    let foreign = forced
        .kernel()
        .plan(forced.stream(), &p.dims, p.qo_indptr, p.kv_indptr, None)
        .unwrap();
    let e = bufs
        .with_views(|v, out, lse, ws| b.kernel().launch_planned(&foreign, stream, v, out, lse, ws));
    assert!(matches!(e, Err(Error::PlanMismatch(_))), "{e:?}");
    let bad = b
        .kernel()
        .plan(stream, &p.dims, &p.qo_indptr[..1], p.kv_indptr, None);
    assert!(bad.is_err(), "{:?}", bad.err());
    println!(
        "host plan: {calls} calls bitwise equal to the device plan ({with_image} with a plan image, \
         {made_direct} direct where the device launch is persistent, \
         {other_config} in the configuration the automatic device choice does not take), \
         graph replays equal, mismatched plans refused"
    );
}

/// The warp-built plan's memo (device plan, automatic split, up to 32
/// sequences): calls sharing one workspace, in an order that hits it (the
/// same lengths again, also with other page ids and values) and misses it
/// (other lengths, which then replace it), each bitwise equal to the same
/// call on a fresh workspace (whose plan the search made), poisoned outputs
/// before each; a graph replayed with the memo warm too.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn plan_memo_hits_match_the_search() {
    let b = gpu!("plan_memo_hits_match_the_search");
    let seed = run_seed();
    let stream: &Arc<_> = b.stream();
    let seeds = embedded_seed().unwrap();
    // A: one sequence, not split; B: m64's spread fine split; C: one query
    // over 4096 keys (split); D: 29 sequences (seed17); A2 and C2: A's and
    // C's lengths with their pages reversed.
    let a = seeds[11].clone();
    let mut a2 = a.clone();
    a2.kv_indices.reverse();
    a2.name = "seed11-reversed".into();
    let bw = from_sequences(
        "memo-2x3-1500",
        3100,
        &[(3, (0..1500).collect()), (3, (1500..3000).rev().collect())],
        default_sm_scale(),
    );
    let c = from_sequences(
        "memo-1x1-4096",
        4096,
        &[(1, (0..4096).collect())],
        default_sm_scale(),
    );
    let c2 = from_sequences(
        "memo-1x1-4096-rev",
        4096,
        &[(1, (0..4096).rev().collect())],
        default_sm_scale(),
    );
    let d = seeds[17].clone();
    let cases = [&a, &bw, &c, &c2, &d, &a2];
    let inputs: Vec<_> = cases.iter().map(|w| w.inputs(seed)).collect();
    // Each call's output on its own fresh workspace (the search's plan).
    let fresh: Vec<Output> = inputs
        .iter()
        .map(|i| run_fast(b, &i.problem()).unwrap())
        .collect();
    let mut bufs: Vec<DeviceBuffers> = inputs
        .iter()
        .map(|i| DeviceBuffers::upload(b.kernel(), stream, &i.problem()).unwrap())
        .collect();
    // One workspace for every call: it moves into the buffers of each call.
    let mut shared = b.kernel().workspace(stream).unwrap();
    let order = [0, 0, 5, 1, 1, 2, 3, 2, 4, 4, 0, 3, 3, 5];
    for (step, &i) in order.iter().enumerate() {
        std::mem::swap(&mut bufs[i].workspace, &mut shared);
        bufs[i].poison(stream).unwrap();
        bufs[i]
            .with_views(|v, out, lse, ws| b.kernel().launch_checked(stream, v, out, lse, ws))
            .unwrap();
        let o = bufs[i].download(stream).unwrap();
        std::mem::swap(&mut bufs[i].workspace, &mut shared);
        assert!(
            bitwise_eq(&o, &fresh[i]),
            "step {step}: {} on the shared workspace differs from a fresh one",
            cases[i].name
        );
    }
    // A graph of C replayed after C2 (the same lengths) and after D.
    std::mem::swap(&mut bufs[2].workspace, &mut shared);
    stream
        .begin_capture(
            cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        )
        .unwrap();
    bufs[2]
        .with_views(|v, out, lse, ws| b.kernel().launch(stream, v, out, lse, ws))
        .unwrap();
    let graph = stream
        .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0))
        .unwrap()
        .unwrap();
    std::mem::swap(&mut bufs[2].workspace, &mut shared);
    for (r, other) in [3usize, 4, 3, 2].into_iter().enumerate() {
        std::mem::swap(&mut bufs[other].workspace, &mut shared);
        bufs[other]
            .with_views(|v, out, lse, ws| b.kernel().launch(stream, v, out, lse, ws))
            .unwrap();
        std::mem::swap(&mut bufs[other].workspace, &mut shared);
        std::mem::swap(&mut bufs[2].workspace, &mut shared);
        bufs[2].poison(stream).unwrap();
        graph.launch().unwrap();
        let o = bufs[2].download(stream).unwrap();
        std::mem::swap(&mut bufs[2].workspace, &mut shared);
        assert!(
            bitwise_eq(&o, &fresh[2]),
            "graph replay {r} of {} differs",
            cases[2].name
        );
    }
    println!(
        "plan memo: {} calls on one workspace and 4 graph replays bitwise equal to fresh workspaces",
        order.len()
    );
}

/// The split-KV path: tiles cut into chunks of 1, 2 or 3 key blocks (forced)
/// and merged in the kernel, in both tile configurations, on edge cases,
/// random batches with long cached prefixes and seed workloads; each against
/// the reference, then repeated (bitwise equal) and replayed from a graph
/// several times (the kernel resets its workspace counters itself).
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn split_kv_chunks_merge_like_the_reference() {
    let _ = gpu!("split_kv_chunks_merge_like_the_reference");
    let seed = run_seed();
    let seeds = embedded_seed().unwrap();
    let mut cases: Vec<Workload> = [1usize, 7, 11, 13]
        .iter()
        .map(|&i| seeds[i].clone())
        .collect();
    cases.extend(edge_cases().into_iter().take(30));
    for i in 0..30u64 {
        let spec = BatchSpec {
            max_batch: 12,
            max_q_len: 200,
            max_extra_kv: if i % 2 == 0 { 2000 } else { 100 },
            max_spare_pages: 32,
            ..Default::default()
        };
        cases.push(random_batch(seed ^ (0x700 + i), &spec));
    }
    let mut split_calls = 0;
    for config in TileConfig::ALL {
        for split in [
            SplitPolicy::Blocks(1),
            SplitPolicy::Blocks(2),
            SplitPolicy::Blocks(3),
        ] {
            let b = backend_with(config, split);
            for w in &cases {
                let inputs = w.inputs(seed);
                let p = inputs.problem();
                let name = format!("{config:?} {split:?} {}", w.name);
                let got = run_fast(&b, &p).unwrap_or_else(|e| panic!("{name}: {e}"));
                let r = b.reference(&p).expect("reference");
                assert_close(&name, &got, &r);
                split_calls += 1;
            }
            // Repeats and graph replays of one split call: same bits.
            let w = &cases[2];
            let inputs = w.inputs(seed);
            let p = inputs.problem();
            let first = run_fast(&b, &p).unwrap();
            assert_repeats_and_replays_equal(
                &b,
                &p,
                &first,
                10,
                5,
                &format!("{config:?} {split:?}"),
            );
        }
    }
    println!(
        "split-KV: {split_calls} forced-split calls ok, repeats and graph replays bitwise equal"
    );
}

/// The spread merge (kernels/attn/merge.cuh: calls of one wave whose
/// longest tile has 7 or more chunks; every chunk of a split tile of at
/// most 64 helps merge it, in pieces of a row for at most 8 chunks, half a
/// row for 16, a quarter for more):
/// decode-like calls of 1-12 queries a sequence over 0.7-6k keys, pages
/// shuffled and one repeated, a chunk that some rows see no key of, in
/// every configuration of at most two consumer warpgroups, with the
/// automatic split and forced chunks of 1-4 blocks (7-64 chunks a tile);
/// against the reference, then repeated and replayed from a graph (bitwise
/// equal: the merge's bits do not depend on which chunk merges which rows).
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn spread_merge_matches_reference() {
    let _ = gpu!("spread_merge_matches_reference");
    let seed = run_seed();
    // (q_len, kv_len) per sequence: one query; 8 queries (48 rows) whose
    // last 64-key block token 0 does not see; 3 and 10 queries; 12 queries
    // over 1800 keys and 4 and 2 over ~1000 (7-16 chunks a tile forced).
    let shapes: [&[(usize, usize)]; 6] = [
        &[(1, 4096)],
        &[(8, 2561)],
        &[(3, 3000), (10, 2500)],
        &[(10, 6000), (0, 0), (2, 1500)],
        &[(12, 1800)],
        &[(4, 1000), (2, 700)],
    ];
    let cases = shaped_cases("spread", &shapes, seed);
    let mut spread_calls = 0;
    let splits = [
        SplitPolicy::Auto,
        SplitPolicy::Blocks(1),
        SplitPolicy::Blocks(2),
        SplitPolicy::Blocks(4),
    ];
    for_forced_calls(&splits, &cases, seed, |c| {
        let (config, split, w) = (c.config, c.split, c.w);
        let dims = w.dims();
        let Some(info) = c.b.kernel().launch_info(&dims, None) else {
            return;
        };
        let plan = UnitPlan::new(&PlanInputs {
            config,
            qo_indptr: &w.qo_indptr,
            kv_indptr: &w.kv_indptr,
            total_q: dims.total_q,
            num_kv_indices: dims.num_kv_indices,
            grid: info.grid as usize,
            split,
            partial_slots: merge_slots(config, 132),
        });
        let chunks = plan.units.iter().map(|u| u.n_chunks).max().unwrap_or(0);
        let spread = plan.units.len() <= info.grid as usize
            && (SPREAD_MERGE_MIN_CHUNKS..=MAX_CHUNKS).contains(&(chunks as i64));
        if spread {
            spread_calls += 1;
            assert_repeats_and_replays_equal(c.b, c.p, c.got, 3, 3, c.name);
        }
    });
    assert!(
        spread_calls >= 20,
        "only {spread_calls} calls took the spread merge"
    );
    println!("spread merge: {spread_calls} calls ok, repeats and graph replays bitwise equal");
}

/// One call of [`for_forced_calls`], checked against the reference.
struct ForcedCall<'a> {
    b: &'a CudaBackend,
    config: TileConfig,
    split: SplitPolicy,
    w: &'a Workload,
    p: &'a HostProblem<'a>,
    got: &'a Output,
    name: &'a str,
}

/// Runs every case on every 64- and 128-row configuration with each of
/// `splits` forced, checks it against the reference, then hands the call
/// to `then`.
fn for_forced_calls(
    splits: &[SplitPolicy],
    cases: &[Workload],
    seed: u64,
    mut then: impl FnMut(&ForcedCall<'_>),
) {
    for config in [
        TileConfig::M64,
        TileConfig::M128,
        TileConfig::M128Deep,
        TileConfig::M128DeepV,
    ] {
        for &split in splits {
            let b = backend_with(config, split);
            for w in cases {
                let inputs = w.inputs(seed);
                let p = inputs.problem();
                let name = format!("{config:?} {split:?} {}", w.name);
                let got = run_fast(&b, &p).unwrap_or_else(|e| panic!("{name}: {e}"));
                let r = b.reference(&p).expect("reference");
                assert_close(&name, &got, &r);
                then(&ForcedCall {
                    b: &b,
                    config,
                    split,
                    w,
                    p: &p,
                    got: &got,
                    name: &name,
                });
            }
        }
    }
}

/// Workloads of `(q_len, kv_len)` per sequence, named `{prefix}-{i}`: page
/// ids a seeded permutation of the pool, each sequence's third page
/// repeating its first.
fn shaped_cases(prefix: &str, shapes: &[&[(usize, usize)]], seed: u64) -> Vec<Workload> {
    let mut cases = Vec::new();
    for (i, seqs) in shapes.iter().enumerate() {
        let total: usize = seqs.iter().map(|s| s.1).sum();
        let num_pages = total + 16;
        let mut pool: Vec<i32> = (0..num_pages as i32).collect();
        let mut x = seed ^ (0x5e7 + i as u64);
        for k in (1..pool.len()).rev() {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            pool.swap(k, (x >> 33) as usize % (k + 1));
        }
        let mut next = 0;
        let seqs: Vec<(usize, Vec<i32>)> = seqs
            .iter()
            .map(|&(q, kv)| {
                let mut pages = pool[next..next + kv].to_vec();
                next += kv;
                if kv > 2 {
                    pages[2] = pages[0];
                }
                (q, pages)
            })
            .collect();
        cases.push(from_sequences(
            &format!("{prefix}-{i}"),
            num_pages,
            &seqs,
            default_sm_scale(),
        ));
    }
    cases
}

/// A split tile's tail warpgroup (the last 64 rows of a sequence longer
/// than 16 rows, 5-16 of them real: 13 queries leave 14, 12 leave 8, 23
/// leave 10) merged by fragments where its few chunks make that cheaper
/// and by rows where they are many (kernels/attn/merge.cuh,
/// `SplitMerge::by_rows`): every 64- and 128-row configuration, the
/// automatic split and chunks of 2-4 and 16 blocks, against the
/// reference, then repeated and replayed from a graph (bitwise equal).
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn tail_warpgroups_merge_like_the_reference() {
    let _ = gpu!("tail_warpgroups_merge_like_the_reference");
    let seed = run_seed();
    let shapes: [&[(usize, usize)]; 5] = [
        &[(13, 681), (13, 680)],
        &[(13, 792), (12, 592), (14, 711)],
        &[(12, 600), (0, 0), (23, 1500)],
        &[(13, 3000)],
        &[(45, 2000), (13, 900), (1, 700)],
    ];
    let cases = shaped_cases("tail", &shapes, seed);
    let mut calls = 0;
    let splits = [
        SplitPolicy::Auto,
        SplitPolicy::Blocks(2),
        SplitPolicy::Blocks(4),
        SplitPolicy::Blocks(16),
    ];
    for_forced_calls(&splits, &cases, seed, |c| {
        assert_repeats_and_replays_equal(c.b, c.p, c.got, 2, 2, c.name);
        calls += 1;
    });
    println!("tail warpgroups: {calls} calls ok, repeats and graph replays bitwise equal");
}

/// Launches `p` `repeats` times, then captures one launch in a graph and
/// replays it `replays` times, outputs poisoned before each: every output
/// bitwise equal to `first`.
fn assert_repeats_and_replays_equal(
    b: &CudaBackend,
    p: &HostProblem<'_>,
    first: &Output,
    repeats: usize,
    replays: usize,
    name: &str,
) {
    let stream: &Arc<_> = b.stream();
    let mut bufs = DeviceBuffers::upload(b.kernel(), stream, p).unwrap();
    for i in 0..repeats {
        bufs.poison(stream).unwrap();
        bufs.with_views(|v, out, lse, ws| b.kernel().launch(stream, v, out, lse, ws))
            .unwrap();
        let o = bufs.download(stream).unwrap();
        assert!(bitwise_eq(&o, first), "{name}: repeat {i} differs");
    }
    stream
        .begin_capture(
            cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        )
        .unwrap();
    bufs.with_views(|v, out, lse, ws| b.kernel().launch(stream, v, out, lse, ws))
        .unwrap();
    let graph = stream
        .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0))
        .unwrap()
        .unwrap();
    for i in 0..replays {
        bufs.poison(stream).unwrap();
        graph.launch().unwrap();
        let o = bufs.download(stream).unwrap();
        assert!(bitwise_eq(&o, first), "{name}: graph replay {i} differs");
    }
}

fn bitwise_eq(a: &Output, b: &Output) -> bool {
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

/// Batches above the shared-memory plan's capacity (512 sequences for m64,
/// 1024 for m128, 64 for m128d, m128dv and m192) take the fallback unit order: same results.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn large_batches_take_the_fallback_order() {
    let _ = gpu!("large_batches_take_the_fallback_order");
    let seed = run_seed();
    for (config, batch) in [
        (TileConfig::M64, 700),
        (TileConfig::M128, 1500),
        (TileConfig::M128Deep, 100),
        (TileConfig::M128DeepV, 100),
        (TileConfig::M192, 100),
    ] {
        let mut b = CudaBackend::new().expect("backend");
        b.set_options(Options {
            tile: Some(config),
            ..Default::default()
        })
        .expect("options");
        let spec = BatchSpec {
            max_batch: batch,
            exact_batch: true,
            max_q_len: 12,
            max_extra_kv: 30,
            ..Default::default()
        };
        let w = random_batch(seed ^ 0x900 ^ batch as u64, &spec);
        let inputs = w.inputs(seed);
        let p = inputs.problem();
        let got = run_fast(&b, &p).unwrap_or_else(|e| panic!("{config:?} {}: {e}", w.name));
        let r = b.reference(&p).expect("reference");
        assert_close(&format!("{config:?} {} ({batch} seqs)", w.name), &got, &r);
    }
    println!("fallback order: 700 (m64), 1500 (m128) and 100 (m128d, m128dv, m192) sequences ok");
}

/// The softmax's fast path (the exponentials of a block taken at the running
/// reference max, kept when no probability exceeds 2^8) and its fallbacks
/// (the references moved up and the block rescaled in registers; S
/// recomputed and the full step where an exponential overflowed). The main
/// loop runs a tile's key blocks from the diagonal down, so the first keys of
/// a sequence come last; here their K rows are scaled so that the reference
/// moves late: by a few units in some rows and not in others (x2.5: some
/// threads of a warpgroup pass, some fail), by tens (x6), and by hundreds
/// (x40: the fast path's exponentials overflow to inf before the block is
/// recomputed). Every tile configuration, with the automatic split and
/// chunks of 2 blocks, on scattered pages.
#[test]
#[ignore = "needs a Hopper GPU (run with --ignored on the GPU machine)"]
fn late_reference_max_matches_reference() {
    let _ = gpu!("late_reference_max_matches_reference");
    let seed = run_seed();
    const NUM_PAGES: usize = 5101; // prime: the stride below permutes the pages
    let lens: [(usize, usize); 4] = [(300, 1400), (64, 2000), (1000, 1000), (17, 700)];
    let mut key = 0usize;
    let seqs: Vec<(usize, Vec<i32>)> = lens
        .iter()
        .map(|&(q, kv)| {
            let pages = (key..key + kv)
                .map(|i| ((i * 2_654_435_761) % NUM_PAGES) as i32)
                .collect();
            key += kv;
            (q, pages)
        })
        .collect();
    let w = from_sequences("late_reference_max", NUM_PAGES, &seqs, default_sm_scale());
    w.validate().expect("test workload is valid");
    let row = pagedattn::problem::NUM_KV_HEADS * pagedattn::problem::HEAD_DIM;
    let mut cases = 0;
    for factor in [2.5f32, 6.0, 40.0] {
        let mut inputs = w.inputs(seed);
        for (_, pages) in &seqs {
            for &p in &pages[..64] {
                let p = p as usize;
                for x in &mut inputs.k_cache[p * row..(p + 1) * row] {
                    *x = half::bf16::from_f32(x.to_f32() * factor);
                }
            }
        }
        let p = inputs.problem();
        for config in TileConfig::ALL {
            for split in [SplitPolicy::Auto, SplitPolicy::Blocks(2)] {
                let b = backend_with(config, split);
                let name = format!("K x{factor}, {config:?}, {split:?} (seed {seed})");
                let got = run_fast(&b, &p).unwrap_or_else(|e| panic!("{name}: {e}"));
                let r = b.reference(&p).expect("reference");
                assert_close(&name, &got, &r);
                cases += 1;
            }
        }
    }
    println!("late reference max: {cases} cases ok");
}
