//! Workload files (JSONL, see SPEC.md) and the seeded inputs drawn for them.
//!
//! A workload fixes the shapes and index arrays of one call; `q`, `k_cache`
//! and `v_cache` are not stored but drawn by [`Workload::inputs`] from a seeded
//! standard normal, so every run on every machine sees the same bytes.
//!
//! Files are validated line by line when parsed: a bad line is reported as
//! `file:line: workload `name`: what is wrong`, never as a panic later in a
//! backend.

use crate::error::{Error, Result};
use pagedattn::half::bf16;
use pagedattn::problem::{self, Dims, OwnedProblem, HEAD_DIM, NUM_KV_HEADS, NUM_QO_HEADS};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// One workload: the shapes and index arrays of a call. `q`, `k_cache` and
/// `v_cache` are not stored; they are drawn from a seeded standard normal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// Unique name (keys the reports).
    pub name: String,
    /// Query tokens of all sequences.
    pub total_q: usize,
    /// Pages of the KV cache.
    pub num_pages: usize,
    /// `[batch + 1]` query offsets.
    pub qo_indptr: Vec<i32>,
    /// `[batch + 1]` offsets into `kv_indices`.
    pub kv_indptr: Vec<i32>,
    /// Page id of every key.
    pub kv_indices: Vec<i32>,
    /// Softmax scale.
    pub sm_scale: f32,
}

/// The 20 published workload shapes (the primary benchmark).
const SEED_JSONL: &str = include_str!("../../../workloads/seed.jsonl");
/// Single sequences of 1k-32k tokens and two large batches.
const SCALE_JSONL: &str = include_str!("../../../workloads/scale.jsonl");

/// The seed set compiled into the binary (`workloads/seed.jsonl`).
pub fn embedded_seed() -> Result<Vec<Workload>> {
    parse_jsonl(SEED_JSONL, "workloads/seed.jsonl")
}

/// The scale set compiled into the binary (`workloads/scale.jsonl`).
pub fn embedded_scale() -> Result<Vec<Workload>> {
    parse_jsonl(SCALE_JSONL, "workloads/scale.jsonl")
}

/// What the CLI runs when no file is given: the seed set, then the scale set.
pub fn embedded_default() -> Result<Vec<Workload>> {
    let mut all = embedded_seed()?;
    all.extend(embedded_scale()?);
    Ok(all)
}

/// Reads and parses a workload file; errors name the path and line.
pub fn load_file(path: impl AsRef<Path>) -> Result<Vec<Workload>> {
    let path = path.as_ref();
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: shown.clone(),
        msg: e.to_string(),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        // Point at the line that holds the first invalid byte.
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::Workload {
            file: shown.clone(),
            line,
            msg: "not valid UTF-8".into(),
        }
    })?;
    parse_jsonl(&text, &shown)
}

/// Parses JSONL text, one workload per non-blank line, validating each one.
///
/// `file` is only used in error messages. Every error is an
/// [`Error::Workload`] with the 1-based line number and, once the line's
/// `name` could be read, the workload's name. A file without any workload and
/// two workloads sharing a name are refused too (names key the reports).
pub fn parse_jsonl(text: &str, file: &str) -> Result<Vec<Workload>> {
    let mut out = Vec::new();
    let mut first_line_of: HashMap<String, usize> = HashMap::new();
    let err = |line: usize, msg: String| Error::Workload {
        file: file.to_string(),
        line,
        msg,
    };
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let w = parse_line(line).map_err(|msg| err(line_no, msg))?;
        if let Some(&first) = first_line_of.get(&w.name) {
            return Err(err(
                line_no,
                format!(
                    "workload `{}`: duplicate name (first on line {first})",
                    w.name
                ),
            ));
        }
        first_line_of.insert(w.name.clone(), line_no);
        out.push(w);
    }
    if out.is_empty() {
        return Err(err(
            1,
            "no workload in this file (expected one JSON object per line)".into(),
        ));
    }
    Ok(out)
}

/// Parses and validates one non-blank line; the error is the message only.
fn parse_line(line: &str) -> std::result::Result<Workload, String> {
    let value: serde_json::Value = serde_json::from_str(line).map_err(|e| json_error_msg(&e))?;
    let serde_json::Value::Object(map) = &value else {
        return Err("expected a JSON object (one workload per line)".into());
    };
    // The name first, so that every later error can name the workload.
    let name = map.get("name").and_then(|n| n.as_str()).map(str::to_string);
    let label = |msg: String| match &name {
        Some(n) => format!("workload `{n}`: {msg}"),
        None => msg,
    };
    let w: Workload = serde_json::from_value(value).map_err(|e| label(e.to_string()))?;
    if w.name.is_empty() {
        return Err("`name` is empty".into());
    }
    w.validate().map_err(|e| label(e.to_string()))?;
    Ok(w)
}

/// A JSON syntax error without serde_json's "at line 1 column N" suffix
/// (always line 1 here: the line number that matters is the file's).
fn json_error_msg(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let inner = full.strip_suffix(&suffix).unwrap_or(&full);
    if e.is_eof() {
        format!("truncated line: the JSON ends early ({inner}); was the file cut off?")
    } else {
        format!("malformed JSON at column {}: {inner}", e.column())
    }
}

impl Workload {
    /// Number of sequences.
    pub fn batch(&self) -> usize {
        self.qo_indptr.len().saturating_sub(1)
    }

    /// The call's declared sizes.
    pub fn dims(&self) -> Dims {
        Dims::new(
            self.total_q,
            self.num_pages,
            self.batch(),
            self.kv_indices.len(),
        )
    }

    /// Checks the index arrays the way a backend would (SPEC.md): geometry
    /// and size limits (no buffer larger than any machine can hold), both
    /// indptrs, page ids, `sm_scale`.
    pub fn validate(&self) -> Result<()> {
        let d = self.dims();
        d.check()?;
        problem::check_sm_scale(self.sm_scale)?;
        problem::check_indptrs(&d, &self.qo_indptr, &self.kv_indptr)?;
        problem::check_page_ids(&d, &self.kv_indices)?;
        Ok(())
    }

    /// Query-key pairs the causal mask lets through.
    pub fn visible_pairs(&self) -> u64 {
        problem::visible_pairs(&self.qo_indptr, &self.kv_indptr)
    }

    /// FLOPs by SPEC.md: `4 * 128 * 24 * visible pairs` (QK^T and PV, 2 each).
    pub fn flops(&self) -> f64 {
        4.0 * HEAD_DIM as f64 * NUM_QO_HEADS as f64 * self.visible_pairs() as f64
    }

    /// Compulsory bytes by SPEC.md: q (bf16) + the gathered k and v rows (bf16,
    /// 4 heads x 128 each) + output (bf16) + lse (f32).
    ///
    /// The gathered rows are the kv entries of every sequence that has at least
    /// one query (a sequence without queries reads nothing); in every shipped
    /// workload that is all of `kv_indices`. This matches the FlashInfer peer
    /// harness, so floors are comparable with `docs/peer-flashinfer-H200.md`.
    pub fn bytes(&self) -> f64 {
        let rows_read: u64 = problem::sequences(&self.qo_indptr, &self.kv_indptr)
            .iter()
            .filter(|s| s.q_len > 0)
            .map(|s| s.kv_len as u64)
            .sum();
        let q = (self.total_q * NUM_QO_HEADS * HEAD_DIM * 2) as f64;
        let kv = rows_read as f64 * (NUM_KV_HEADS * HEAD_DIM * 2 * 2) as f64;
        let lse = (self.total_q * NUM_QO_HEADS * 4) as f64;
        q + kv + q + lse
    }

    /// Draws this workload's inputs: q, k_cache and v_cache from a standard
    /// normal rounded to bf16; index arrays copied. Deterministic in `(seed,
    /// name)`, independent of the thread count: see [`DEFAULT_SEED`].
    pub fn inputs(&self, seed: u64) -> Inputs {
        let dims = self.dims();
        let h = name_hash(&self.name);
        Inputs {
            q: normal_bf16(dims.q_elems(), seed, h, Tensor::Q),
            k_cache: normal_bf16(dims.kv_elems(), seed, h, Tensor::K),
            v_cache: normal_bf16(dims.kv_elems(), seed, h, Tensor::V),
            qo_indptr: self.qo_indptr.clone(),
            kv_indptr: self.kv_indptr.clone(),
            kv_indices: self.kv_indices.clone(),
            sm_scale: self.sm_scale,
            dims,
        }
    }
}

/// The seed used when none is given (`--seed`).
///
/// How the bytes are derived, so that anyone can reproduce them: each tensor
/// (`q`, `k_cache`, `v_cache`, tensor ids 1, 2, 3) is cut into chunks of
/// [`CHUNK`] elements in row-major order. Chunk `c` of tensor `t` is drawn from
/// `ChaCha8Rng::from_seed(key)` with stream `c` (`set_stream(c)`), where the
/// 32-byte key is `seed`, `fnv1a64(name)`, `t` (each as 8 little-endian bytes)
/// and the 8 bytes `b"pagedatt"`. Each element is
/// `rand_distr::StandardNormal` sampled as `f32` (rand_distr 0.4.3), rounded to
/// the nearest bf16. Chunks are independent, so they are drawn in parallel and
/// the result does not depend on the number of threads.
pub const DEFAULT_SEED: u64 = 0x5EED_0001;

/// Elements per independent random stream.
pub const CHUNK: usize = 1 << 16;

#[derive(Clone, Copy)]
enum Tensor {
    Q = 1,
    K = 2,
    V = 3,
}

/// FNV-1a, 64-bit: a stable hash of the name (std's hasher is not stable
/// across Rust releases).
pub fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn normal_bf16(n: usize, seed: u64, name_hash: u64, tensor: Tensor) -> Vec<bf16> {
    let mut key = [0u8; 32];
    key[0..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&name_hash.to_le_bytes());
    key[16..24].copy_from_slice(&(tensor as u64).to_le_bytes());
    key[24..32].copy_from_slice(b"pagedatt");
    let mut v = vec![bf16::ZERO; n];
    v.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(c as u64);
        for x in chunk {
            let s: f32 = StandardNormal.sample(&mut rng);
            *x = bf16::from_f32(s);
        }
    });
    v
}

/// A workload's inputs in host memory, owned (the library's [`OwnedProblem`]).
pub type Inputs = OwnedProblem;

/// Host bytes a run of a call of these sizes takes at its peak: the drawn
/// inputs, a backend's own copy of them, the CPU backend's f32 copies of the
/// gathered keys and values, two outputs (the backend's and the reference's).
pub fn host_bytes_needed(d: &Dims) -> u64 {
    let gathered = d.num_kv_indices as u64 * (NUM_KV_HEADS * HEAD_DIM * 4 * 2) as u64;
    2 * d.input_bytes() + gathered + 2 * d.output_bytes()
}

/// `MemAvailable` of `/proc/meminfo`, in bytes (`None` where there is none).
pub fn host_memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Refuses, with [`pagedattn::Error::InsufficientMemory`], a call whose host
/// buffers ([`host_bytes_needed`]) exceed the memory available, before
/// anything is allocated (an allocation that fails aborts the process).
pub fn check_host_memory(d: &Dims) -> Result<()> {
    let needed = host_bytes_needed(d);
    match host_memory_available() {
        Some(available) if needed > available => Err(pagedattn::Error::InsufficientMemory {
            what: "host",
            needed,
            available,
        }
        .into()),
        _ => Ok(()),
    }
}
