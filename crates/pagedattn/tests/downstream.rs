//! A downstream crate, as a serving engine would add this one: a scratch
//! package depending on `pagedattn` (CPU path, `default-features = false`),
//! using only the root re-exports, is built and run, and its dependency tree
//! holds nothing of the harness (no clap, indicatif, serde_json, rand_chacha).
//!
//! Offline, with this workspace's lockfile: it needs nothing that the
//! workspace's own build has not fetched already.

use std::path::{Path, PathBuf};
use std::process::Command;

const MAIN: &str = r#"
use pagedattn::half::bf16;
use pagedattn::{cpu_attention, Dims, Error, HostProblem, Output, Result};

// The GPU API is reachable from the root too (types only: no GPU here).
#[allow(dead_code)]
fn gpu_api(
    attn: &pagedattn::PagedPrefill,
    stream: &pagedattn::cudarc::driver::CudaStream,
    call: &pagedattn::DeviceProblem<'_>,
    out: &mut pagedattn::cudarc::driver::CudaViewMut<'_, bf16>,
    lse: &mut pagedattn::cudarc::driver::CudaViewMut<'_, f32>,
    ws: &mut pagedattn::Workspace,
    plan: &pagedattn::DevicePlan,
) -> Result<()> {
    attn.launch_planned(plan, stream, call, out, lse, ws)
}

fn main() -> Result<()> {
    let dims = Dims::new(2, 3, 1, 3);
    let q = vec![bf16::from_f32(0.5); dims.q_elems()];
    let kv = vec![bf16::from_f32(1.0); dims.kv_elems()];
    let call = HostProblem {
        dims,
        q: &q,
        k_cache: &kv,
        v_cache: &kv,
        qo_indptr: &[0, 2],
        kv_indptr: &[0, 3],
        kv_indices: &[2, 0, 1],
        sm_scale: 0.125,
    };
    let Output { out, lse } = cpu_attention(&call)?;
    assert!(out.iter().all(|x| x.to_f32() == 1.0));
    assert!(lse.iter().all(|x| x.is_finite()));
    let bad = HostProblem { kv_indices: &[2, 0, 3], ..call };
    assert!(matches!(cpu_attention(&bad), Err(Error::PageOutOfRange { page: 3, .. })));
    // Without the kernels the GPU entry point says so (no panic).
    match pagedattn::CudaBackend::new() {
        Err(e) => println!("gpu: {e}"),
        Ok(_) => println!("gpu: opened"),
    }
    println!("downstream ok: {} outputs", out.len());
    Ok(())
}
"#;

fn cargo(dir: &Path, target: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "cargo {args:?} failed:\n{stdout}\n{stderr}"
    );
    stdout
}

#[test]
fn downstream_crate_uses_the_root_reexports() {
    let lib = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = tmp.join("downstream");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"downstream\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\npagedattn = {{ path = {:?}, default-features = false }}\n\n[workspace]\n",
            lib.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(dir.join("src/main.rs"), MAIN).unwrap();
    // The workspace's lockfile: the same versions, nothing to fetch.
    std::fs::copy(lib.join("../../Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let target = tmp.join("downstream-target");

    let tree = cargo(
        &dir,
        &target,
        &["tree", "--offline", "-e", "normal", "--prefix", "none"],
    );
    // (rand itself comes with cudarc's f16 support, through half.)
    for harness in [
        "clap",
        "indicatif",
        "serde_json",
        "rand_chacha",
        "pagedattn-cli",
        "proptest",
    ] {
        assert!(
            !tree.lines().any(|l| l.starts_with(&format!("{harness} "))),
            "a downstream crate gets `{harness}`:\n{tree}"
        );
    }
    let run = cargo(&dir, &target, &["run", "--offline", "--quiet"]);
    assert!(run.contains("downstream ok"), "{run}");
    assert!(run.contains("gpu: "), "{run}");
}
