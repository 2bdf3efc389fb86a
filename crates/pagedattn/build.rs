//! With the `cuda` feature (default), compiles `kernels/*.cu` ahead of time
//! into `sm_90a` cubins in `OUT_DIR`; `src/backend/cuda/ffi.rs` embeds them.
//!
//! nvcc is looked for in `$NVCC`, `$CUDA_HOME/bin` (or `CUDA_PATH`,
//! `CUDA_ROOT`), the `PATH`, then the pinned pip install in the toolchain
//! directory: `$PAGEDATTN_TOOLCHAIN_DIR` if set, else `OUT_DIR/cuda-toolchain`.
//! CUTLASS/CuTe headers: `$CUTLASS_INCLUDE`, else the toolchain directory.
//! When either is missing, `install-cuda-toolchain.sh` installs the pinned
//! wheels from PyPI there (about 320 MB, once per directory). When that fails
//! too (no pip, no network), the crate builds without kernels: one warning,
//! and the CUDA backend reports "built without kernels".
//!
//! This script writes only under `OUT_DIR` (and the toolchain directory when
//! `PAGEDATTN_TOOLCHAIN_DIR` names one). It says what it is doing before the
//! long steps (on the terminal, when there is one) and emits a cargo warning
//! only when the kernels could not be built.
use std::env;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Translation units, each compiled to `<name>.cubin`.
const KERNELS: &[&str] = &["attention", "reference"];

/// Spill stores ptxas makes that were measured and accepted (function, most
/// bytes): m192's persistent entry kept a few per-unit values of its
/// consumers (152 registers a thread beside the 56-register producer) in
/// local memory before the split became a call (24-32 bytes, stored after a
/// unit's softmax and loaded before its epilogue; whether it has them moves
/// with edits of the plan builder: BENCHMARKS.md, seventeenth, twenty-third
/// and twenty-fourth sessions). None now; any other spill, or a larger
/// one, is a warning.
const KNOWN_SPILLS: &[(&str, u32)] = &[("paged_prefill_m192", 56)];

fn manifest_dir() -> PathBuf {
    PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap())
}

fn out_dir() -> PathBuf {
    PathBuf::from(env::var("OUT_DIR").unwrap())
}

/// Where the pinned toolchain is looked for and installed.
fn toolchain_dir() -> PathBuf {
    match env::var_os("PAGEDATTN_TOOLCHAIN_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => out_dir().join("cuda-toolchain"),
    }
}

/// A progress line for the person waiting: on the terminal when there is one
/// (cargo shows a build script's output only at the end, or with -vv), and on
/// stderr for the build log. Not a cargo warning: those are replayed on every
/// later build.
fn progress(msg: &str) {
    eprintln!("pagedattn build: {msg}");
    if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        let _ = writeln!(tty, "\r\x1b[K   pagedattn build: {msg}");
    }
}

fn find_nvcc(toolchain: &Path) -> Option<PathBuf> {
    if let Some(p) = env::var_os("NVCC").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
        if let Some(root) = env::var_os(var) {
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
    let p = toolchain.join("nvidia/cu13/bin/nvcc");
    p.is_file().then_some(p)
}

fn find_cutlass(toolchain: &Path) -> Option<PathBuf> {
    if let Some(p) = env::var_os("CUTLASS_INCLUDE").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let p = toolchain.join("cutlass_library/source/include");
    p.join("cute/tensor.hpp").is_file().then_some(p)
}

/// Installs the pinned toolchain; `Err` with the reason in one line.
fn install_toolchain(dir: &Path) -> Result<(), String> {
    progress(&format!(
        "no nvcc/CUTLASS found: installing the pinned CUDA toolchain (nvcc 13.0, CUTLASS 4.2; \
         about 320 MB from PyPI via python3 -m pip) into {} ...",
        dir.display()
    ));
    let t0 = Instant::now();
    let out = Command::new("bash")
        .arg(manifest_dir().join("install-cuda-toolchain.sh"))
        .arg(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run bash: {e}"))?;
    if out.status.success() {
        progress(&format!(
            "CUDA toolchain installed in {:.0} s",
            t0.elapsed().as_secs_f64()
        ));
        return Ok(());
    }
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no output")
        .trim()
        .to_string();
    Err(format!("installing it failed ({last})"))
}

fn main() {
    for v in [
        "NVCC",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "CUTLASS_INCLUDE",
        "NVCC_EXTRA_FLAGS",
        "PAGEDATTN_TOOLCHAIN_DIR",
    ] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=install-cuda-toolchain.sh");
    println!("cargo:rerun-if-changed=kernels");
    println!("cargo:rustc-check-cfg=cfg(pagedattn_kernels)");
    if env::var_os("CARGO_FEATURE_CUDA").is_none() {
        return; // the CPU-only build asked for: nothing to say
    }

    let toolchain = toolchain_dir();
    let mut failure = None;
    if find_nvcc(&toolchain).is_none() || find_cutlass(&toolchain).is_none() {
        failure = install_toolchain(&toolchain).err();
    }
    let (Some(nvcc), Some(cutlass)) = (find_nvcc(&toolchain), find_cutlass(&toolchain)) else {
        let why = failure.unwrap_or_else(|| "the install did not produce them".into());
        println!(
            "cargo:warning=pagedattn: building WITHOUT the GPU kernels: no nvcc/CUTLASS found and \
             {why}. The CPU backend works; the CUDA backend will report \"built without kernels\". \
             To build them: set NVCC and CUTLASS_INCLUDE (or CUDA_HOME), or make `python3 -m pip` \
             and PyPI reachable; for the CPU path only, build with --no-default-features."
        );
        return;
    };

    // One nvcc process per translation unit, in parallel: the CuTe front end is
    // single-threaded and dominates the build.
    progress(&format!(
        "compiling the CUDA kernels ({}) with {} (about a minute) ...",
        KERNELS.join(", "),
        nvcc.display()
    ));
    let out_dir = out_dir();
    let kernels = manifest_dir().join("kernels");
    let children: Vec<_> = KERNELS
        .iter()
        .map(|k| {
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
            .arg(format!("-I{}", kernels.display()))
            .arg("-o")
            .arg(out_dir.join(format!("{k}.cubin")))
            .arg(kernels.join(format!("{k}.cu")));
            if let Ok(extra) = env::var("NVCC_EXTRA_FLAGS") {
                cmd.args(extra.split_whitespace());
            }
            let t0 = Instant::now();
            let child = cmd
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
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
        // What ptxas says would cost time silently: wgmma issued one at a time
        // (an accumulator touched while a GEMM is in flight, or a GEMM behind
        // a branch it cannot prove warp-uniform) and register spills beyond
        // the known ones.
        let mut function = "";
        for line in stderr.lines() {
            if let Some(f) = line.split("Function properties for ").nth(1) {
                function = f.trim();
            }
            let spilled = line
                .find(" bytes spill stores")
                .and_then(|i| line[..i].rsplit(' ').next()?.parse::<u32>().ok())
                .unwrap_or(0);
            let known = KNOWN_SPILLS
                .iter()
                .any(|&(f, bytes)| f == function && spilled <= bytes);
            if line.contains("Potential Performance Loss") || (spilled > 0 && !known) {
                println!(
                    "cargo:warning=pagedattn: kernels/{k}.cu: {function}: {}",
                    line.trim()
                );
            }
        }
        let secs = t0.elapsed().as_secs_f64();
        report.push_str(&format!(
            "[{k}] nvcc {secs:.1}s ({})\n{stderr}\n",
            nvcc.display()
        ));
    }
    std::fs::write(out_dir.join("ptxas_report.txt"), &report).unwrap();
    println!("cargo:rustc-cfg=pagedattn_kernels");
}
