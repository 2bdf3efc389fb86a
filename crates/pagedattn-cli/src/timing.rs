//! Timing per SPEC.md: CUDA events around a graph replay of one call, the L2
//! flushed (a buffer of twice its size written) before each call, median
//! taken by the caller. Also the copy-bandwidth ceiling for the floor.

use std::sync::Arc;

use pagedattn::cudarc::driver::{sys, CudaGraph, CudaStream, DevicePtrMut};

use crate::backend::Peaks;
use crate::error::Result;

/// Sets every byte of a device buffer (async on `stream`).
pub(crate) fn fill_bytes<T, B: DevicePtrMut<T>>(
    stream: &CudaStream,
    buf: &mut B,
    byte: u8,
) -> Result<()> {
    let bytes = buf.num_bytes();
    if bytes == 0 {
        return Ok(());
    }
    // The raw memset needs the context current on this thread.
    stream.context().bind_to_thread()?;
    let (ptr, _g) = buf.device_ptr_mut(stream);
    // SAFETY: `bytes` bytes at `ptr` belong to `buf`.
    unsafe {
        pagedattn::cudarc::driver::result::memset_d8_async(ptr, byte, bytes, stream.cu_stream())
    }?;
    Ok(())
}

/// Captures what `f` launches on `stream` into a graph. `Ok(None)` when `f`
/// launched nothing (an empty call).
pub(crate) fn capture(
    stream: &Arc<CudaStream>,
    f: impl FnOnce() -> Result<()>,
) -> Result<Option<CudaGraph>> {
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    let launched = f();
    // End the capture whatever happened, so the stream is usable again.
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0));
    launched?;
    let graph = graph?;
    if let Some(g) = &graph {
        g.upload()?;
    }
    Ok(graph)
}

/// What the L2 holds when a timed replay starts.
#[derive(Clone, Copy)]
pub(crate) enum L2State<'a> {
    /// SPEC.md: flushed (a buffer of twice its size written) before each call.
    Cold,
    /// Not flushed: what the previous replay of the same call left there.
    Warm,
    /// Flushed, then this graph (the same call on other buffers) replayed:
    /// the kernel's code and what the two calls share (a host plan's image)
    /// warm, the call's own data cold.
    ColdData(Option<&'a CudaGraph>),
}

/// Per-call microseconds of `reps` graph replays after `warmup`, each after
/// the L2 was put in `l2` state, timed by events recorded around the replay
/// alone.
pub(crate) fn time_graph(
    stream: &Arc<CudaStream>,
    graph: Option<&CudaGraph>,
    l2_bytes: usize,
    l2: L2State<'_>,
    warmup: usize,
    reps: usize,
) -> Result<Vec<f64>> {
    let mut flush = stream.alloc_zeros::<u8>(2 * l2_bytes)?;
    let ctx = stream.context();
    let replay = |g: Option<&CudaGraph>| -> Result<()> {
        if let Some(g) = g {
            g.launch()?;
        }
        Ok(())
    };
    let mut prepare = |i: usize| -> Result<()> {
        match l2 {
            L2State::Cold => fill_bytes(stream, &mut flush, i as u8),
            L2State::Warm => Ok(()),
            L2State::ColdData(twin) => {
                fill_bytes(stream, &mut flush, i as u8)?;
                replay(twin)
            }
        }
    };
    for i in 0..warmup {
        prepare(i)?;
        replay(graph)?;
    }
    let mut events = Vec::with_capacity(reps);
    for i in 0..reps {
        let start = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
        prepare(i + 1)?;
        start.record(stream)?;
        replay(graph)?;
        end.record(stream)?;
        events.push((start, end));
    }
    stream.synchronize()?;
    events
        .iter()
        .map(|(s, e)| Ok(s.elapsed_ms(e)? as f64 * 1e3))
        .collect()
}

/// Per-call microseconds of `call` by the host clock, for calls that
/// synchronise themselves; the L2 is flushed (and the flush waited for)
/// before each.
pub(crate) fn time_host(
    stream: &Arc<CudaStream>,
    l2_bytes: usize,
    warmup: usize,
    reps: usize,
    mut call: impl FnMut() -> Result<()>,
) -> Result<Vec<f64>> {
    let mut flush = stream.alloc_zeros::<u8>(2 * l2_bytes)?;
    let mut times = Vec::with_capacity(reps);
    for i in 0..warmup + reps {
        fill_bytes(stream, &mut flush, i as u8)?;
        stream.synchronize()?;
        let t0 = std::time::Instant::now();
        call()?;
        if i >= warmup {
            times.push(t0.elapsed().as_secs_f64() * 1e6);
        }
    }
    Ok(times)
}

/// Median of a non-empty sample.
pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Measures the device-to-device copy bandwidth (read + write) on a 1 GiB
/// buffer; the bf16 matmul peak is the documented H200 value (the crate
/// carries no GEMM of its own to measure it with).
pub(crate) fn measure_peaks(stream: &Arc<CudaStream>) -> Result<Peaks> {
    const BYTES: usize = 1 << 30;
    let src = stream.alloc_zeros::<u8>(BYTES)?;
    let mut dst = stream.alloc_zeros::<u8>(BYTES)?;
    let ctx = stream.context();
    let mut times = Vec::new();
    for i in 0..13 {
        let start = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
        start.record(stream)?;
        stream.memcpy_dtod(&src, &mut dst)?;
        end.record(stream)?;
        stream.synchronize()?;
        if i >= 3 {
            times.push(start.elapsed_ms(&end)? as f64 * 1e-3);
        }
    }
    let secs = median(times);
    Ok(Peaks {
        matmul_tflops: Peaks::H200_DEFAULT.matmul_tflops,
        copy_gbps: 2.0 * BYTES as f64 / secs / 1e9,
        measured: false,
    })
}
