//! Comparison of a backend's output with a reference, by the bound of SPEC.md:
//! `|x - ref| <= 1e-2 + 1e-2 * |ref|` for every output element and every finite
//! lse; `-inf` lse exactly where the reference has it; no NaN anywhere.

use crate::problem::Output;

/// Absolute part of the bound.
pub const ATOL: f64 = 1e-2;
/// Relative part of the bound.
pub const RTOL: f64 = 1e-2;

/// Where and how much an output differs from its reference.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CheckReport {
    /// Largest `|out - ref|` over output elements.
    pub max_abs_out: f64,
    /// Flat index of that element.
    pub worst_out_index: usize,
    /// Largest `|lse - ref|` over finite lse entries.
    pub max_abs_lse: f64,
    /// Flat index of that entry.
    pub worst_lse_index: usize,
    /// Output elements outside the bound.
    pub out_violations: usize,
    /// lse entries outside the bound (finite ones).
    pub lse_violations: usize,
    /// lse entries that are `-inf` in one and not the other.
    pub inf_mismatches: usize,
    /// NaN entries in the output or lse under test.
    pub nans: usize,
    /// Lengths differ (nothing else compared).
    pub length_mismatch: bool,
}

impl CheckReport {
    /// Whether the output meets the SPEC.md bound everywhere.
    pub fn ok(&self) -> bool {
        !self.length_mismatch
            && self.out_violations == 0
            && self.lse_violations == 0
            && self.inf_mismatches == 0
            && self.nans == 0
    }
}

fn within(x: f64, r: f64) -> bool {
    (x - r).abs() <= ATOL + RTOL * r.abs()
}

/// Compares `got` with `reference` element by element.
///
/// ```
/// use pagedattn::check::compare;
/// use pagedattn::{half::bf16, Output};
/// let reference = Output { out: vec![bf16::from_f32(1.0)], lse: vec![0.5, f32::NEG_INFINITY] };
/// let close = Output { out: vec![bf16::from_f32(1.0078125)], lse: vec![0.505, f32::NEG_INFINITY] };
/// assert!(compare(&close, &reference).ok());
/// let far = Output { out: vec![bf16::from_f32(1.5)], ..reference.clone() };
/// assert_eq!(compare(&far, &reference).out_violations, 1);
/// ```
pub fn compare(got: &Output, reference: &Output) -> CheckReport {
    let mut rep = CheckReport::default();
    if got.out.len() != reference.out.len() || got.lse.len() != reference.lse.len() {
        rep.length_mismatch = true;
        return rep;
    }
    for (i, (g, r)) in got.out.iter().zip(&reference.out).enumerate() {
        let (g, r) = (g.to_f64(), r.to_f64());
        if g.is_nan() {
            rep.nans += 1;
            continue;
        }
        let d = (g - r).abs();
        if d > rep.max_abs_out || d.is_nan() {
            rep.max_abs_out = d;
            rep.worst_out_index = i;
        }
        if !within(g, r) {
            rep.out_violations += 1;
        }
    }
    for (i, (&g, &r)) in got.lse.iter().zip(&reference.lse).enumerate() {
        let (g, r) = (g as f64, r as f64);
        if g.is_nan() {
            rep.nans += 1;
            continue;
        }
        let g_ninf = g == f64::NEG_INFINITY;
        let r_ninf = r == f64::NEG_INFINITY;
        if g_ninf || r_ninf {
            if g_ninf != r_ninf {
                rep.inf_mismatches += 1;
            }
            continue;
        }
        let d = (g - r).abs();
        if d > rep.max_abs_lse {
            rep.max_abs_lse = d;
            rep.worst_lse_index = i;
        }
        if !within(g, r) {
            rep.lse_violations += 1;
        }
    }
    rep
}
