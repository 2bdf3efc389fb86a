//! Compiles `kernels/*.cu` ahead of time into `sm_90a` cubins in `OUT_DIR`;
//! `src/backend/cuda` embeds them with `include_bytes!`.
//!
//! nvcc is looked for in `$NVCC`, `$CUDA_HOME/bin` (or CUDA_PATH/CUDA_ROOT), the
//! PATH, then the project-local pip install `.toolchain/cuda` (made by
//! `scripts/install-cuda-toolchain.sh`, which this script runs when nothing else
//! is found). CUTLASS/CuTe headers: `$CUTLASS_INCLUDE`, else `.toolchain/cuda`.
//! Set `PAGEDATTN_NO_KERNELS=1` to build without kernels (the CUDA backend then
//! reports itself unavailable).
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Translation units, each compiled to `<name>.cubin`.
const KERNELS: &[&str] = &["attention", "reference"];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap())
}

fn local_toolchain() -> PathBuf {
    manifest_dir().join(".toolchain/cuda")
}

fn find_nvcc() -> Option<PathBuf> {
    if let Ok(p) = env::var("NVCC") {
        return Some(PathBuf::from(p));
    }
    for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
        if let Ok(root) = env::var(var) {
            let p = Path::new(&root).join("bin/nvcc");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    if let Some(paths) = env::var_os("PATH") {
        for dir in env::split_paths(&paths) {
            let p = dir.join("nvcc");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    let p = local_toolchain().join("nvidia/cu13/bin/nvcc");
    p.is_file().then_some(p)
}

fn find_cutlass() -> Option<PathBuf> {
    if let Ok(p) = env::var("CUTLASS_INCLUDE") {
        return Some(PathBuf::from(p));
    }
    let p = local_toolchain().join("cutlass_library/source/include");
    p.join("cute/tensor.hpp").is_file().then_some(p)
}

fn install_local_toolchain() {
    let script = manifest_dir().join("scripts/install-cuda-toolchain.sh");
    println!(
        "cargo:warning=no nvcc/CUTLASS found: installing the pinned toolchain into .toolchain/cuda"
    );
    match Command::new("bash").arg(&script).status() {
        Ok(s) if s.success() => {}
        other => println!("cargo:warning=toolchain install failed: {other:?}"),
    }
}

fn main() {
    for v in [
        "NVCC",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "CUTLASS_INCLUDE",
        "NVCC_EXTRA_FLAGS",
        "PAGEDATTN_NO_KERNELS",
    ] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    println!("cargo:rustc-check-cfg=cfg(pagedattn_kernels)");
    // The commit a binary was built from, for reports made on other machines.
    if let Ok(o) = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
    {
        if o.status.success() {
            // Uncommitted kernel sources make the commit name a lie: say so.
            let dirty = Command::new("git")
                .args(["status", "--porcelain", "--", "kernels"])
                .output()
                .map(|d| !d.stdout.is_empty())
                .unwrap_or(false);
            println!(
                "cargo:rustc-env=PAGEDATTN_BUILD_COMMIT={}{}",
                String::from_utf8_lossy(&o.stdout).trim(),
                if dirty { "+kernels-dirty" } else { "" }
            );
        }
    }
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/logs/HEAD");
    println!("cargo:rerun-if-changed=kernels");
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    if env::var_os("PAGEDATTN_NO_KERNELS").is_some() {
        println!("cargo:warning=PAGEDATTN_NO_KERNELS set: building without GPU kernels");
        return;
    }
    if find_nvcc().is_none() || find_cutlass().is_none() {
        install_local_toolchain();
    }
    let (Some(nvcc), Some(cutlass)) = (find_nvcc(), find_cutlass()) else {
        panic!(
            "nvcc or CUTLASS headers not found: run scripts/install-cuda-toolchain.sh, \
             set NVCC / CUTLASS_INCLUDE, or set PAGEDATTN_NO_KERNELS=1 to build without GPU kernels"
        );
    };

    // One nvcc process per translation unit, in parallel: the CuTe front end is
    // single-threaded and dominates the build.
    let children: Vec<_> = KERNELS
        .iter()
        .map(|k| {
            let src = manifest_dir().join(format!("kernels/{k}.cu"));
            let cubin = out_dir.join(format!("{k}.cubin"));
            let mut cmd = Command::new(&nvcc);
            cmd.args([
                "-gencode=arch=compute_90a,code=sm_90a", // wgmma/setmaxnreg need the "a" target
                "-cubin",
                "-std=c++17",
                "--expt-relaxed-constexpr",
                "-O3",
                "-lineinfo",
                "-Xptxas=-v",
                "-DNDEBUG",
            ])
            .arg(format!("-I{}", cutlass.display()))
            .arg(format!("-I{}", manifest_dir().join("kernels").display()))
            .arg("-o")
            .arg(&cubin)
            .arg(&src);
            if let Ok(extra) = env::var("NVCC_EXTRA_FLAGS") {
                cmd.args(extra.split_whitespace());
            }
            let t0 = Instant::now();
            let child = cmd
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("failed to run {}: {e}", nvcc.display()));
            (k, child, t0)
        })
        .collect();
    let mut report = String::new();
    for (k, child, t0) in children {
        let out = child.wait_with_output().expect("nvcc did not finish");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            panic!(
                "nvcc failed for kernels/{k}.cu:\n{}\n{stderr}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
        let secs = t0.elapsed().as_secs_f64();
        report.push_str(&format!(
            "[{k}] nvcc {secs:.1}s ({})\n{stderr}\n",
            nvcc.display()
        ));
    }
    std::fs::write(out_dir.join("ptxas_report.txt"), &report).unwrap();
    // Keep copies where tools (cuobjdump, the SASS check) can find them.
    let dist = manifest_dir().join("target/kernels");
    let _ = std::fs::create_dir_all(&dist);
    for k in KERNELS {
        let _ = std::fs::copy(
            out_dir.join(format!("{k}.cubin")),
            dist.join(format!("{k}.cubin")),
        );
    }
    let _ = std::fs::write(dist.join("ptxas_report.txt"), &report);
    println!("cargo:rustc-cfg=pagedattn_kernels");
}
