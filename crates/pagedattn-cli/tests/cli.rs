//! The `pagedattn` binary: a small CPU bench with its JSON report, and clean
//! refusals (exit status and one `error:` line, no panic trace) for bad input.

use std::path::PathBuf;
use std::process::{Command, Output};

fn pagedattn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pagedattn"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("the pagedattn binary runs")
}

/// `pagedattn CMD --backend cpu --workloads PATH`.
fn cpu_on_file(cmd: &str, path: &std::path::Path) -> Output {
    pagedattn(&[
        cmd,
        "--backend",
        "cpu",
        "--workloads",
        path.to_str().unwrap(),
    ])
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pagedattn-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn assert_clean_failure(out: &Output) -> String {
    let err = text(&out.stderr);
    assert!(!out.status.success(), "expected failure; stderr: {err}");
    assert!(!err.contains("panicked"), "panic trace in: {err}");
    err
}

#[test]
fn bench_cpu_writes_json() {
    let dir = scratch("json");
    let json = dir.join("report.json");
    let out = pagedattn(&[
        "bench",
        "--backend",
        "cpu",
        "--filter",
        "seed00",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "stdout: {stdout}\nstderr: {}",
        text(&out.stderr)
    );
    assert!(stdout.contains("seed00_q79_b1"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["backend"], "cpu");
    assert_eq!(report["mode"], "bench");
    assert!(report["date"].as_str().unwrap().ends_with('Z'));
    assert!(report["peaks"]["matmul_tflops"].as_f64().unwrap() > 0.0);
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["name"], "seed00_q79_b1");
    assert_eq!(row["total_q"], 79);
    assert_eq!(row["batch"], 1);
    assert_eq!(row["pairs"], 3160);
    // Checked against the naive CPU reference (small enough for it).
    assert_eq!(row["status"], "ok");
    assert_eq!(row["reference"], "naive");
    assert!(row["check"]["max_abs_out"].as_f64().unwrap() < 1e-2);
    assert!(row["time_us"].as_f64().unwrap() > 0.0);
    assert!(row["floor_us"].as_f64().unwrap() > 0.0);
    assert!(row["reps"].as_u64().unwrap() >= 1);
    let digest = row["output_digest"].as_str().unwrap();
    assert_eq!(digest.len(), 16);
    assert!(digest.chars().all(|c| c.is_ascii_hexdigit()), "{digest}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The JSON report's output digest of `seed01` with inputs drawn from `seed`.
fn seed01_digest(dir: &std::path::Path, seed: &str) -> String {
    let json = dir.join(format!("digest-{seed}.json"));
    let out = pagedattn(&[
        "check",
        "--backend",
        "cpu",
        "--filter",
        "seed01",
        "--seed",
        seed,
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    report["rows"][0]["output_digest"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn output_digest_follows_the_inputs() {
    let dir = scratch("digest");
    let a = seed01_digest(&dir, "7");
    assert_eq!(a, seed01_digest(&dir, "7"), "same inputs, same bits");
    assert_ne!(a, seed01_digest(&dir, "8"), "other inputs, other bits");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_command_is_bench() {
    let out = pagedattn(&[
        "--backend",
        "cpu",
        "--filter",
        "seed01",
        "--reps",
        "1",
        "--warmup",
        "0",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("pagedattn bench") && stdout.contains("seed01_q82_b2"),
        "{stdout}"
    );
}

/// `check --backend cpu` compares with the independent naive reference
/// where it is small enough, and says so where it is not.
#[test]
fn check_cpu() {
    let out = pagedattn(&["check", "--backend", "cpu", "--filter", "seed00"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(
        stdout.contains("pagedattn check") && stdout.contains("max abs out"),
        "{stdout}"
    );
    let row = stdout
        .lines()
        .find(|l| l.contains("seed00_q79_b1"))
        .unwrap();
    assert!(row.contains(" ok ") && row.contains("naive"), "{row}");
    assert!(stdout.contains("1 workload: 1 ok"), "{stdout}");

    let out = pagedattn(&[
        "check",
        "--backend",
        "cpu",
        "--filter",
        "seed00",
        "--naive-max-pairs",
        "100",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let row = stdout
        .lines()
        .find(|l| l.contains("seed00_q79_b1"))
        .unwrap();
    assert!(
        row.contains("reference") && row.contains("not compared: 3160 pairs > 100"),
        "{row}"
    );
}

/// `--generated N`: the hand-picked edge cases plus N seeded random batches,
/// instead of the embedded sets.
#[test]
fn generated_edge_cases() {
    let out = pagedattn(&["check", "--backend", "cpu", "--generated", "2"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    for name in [
        "empty-batch",
        "kv-shorter-than-q",
        "repeated-pages",
        "random-",
    ] {
        assert!(stdout.contains(name), "{name} missing:\n{stdout}");
    }
    assert!(
        !stdout.contains("seed00"),
        "embedded sets included:\n{stdout}"
    );
}

#[test]
fn cpu_skips_huge_workloads() {
    let out = pagedattn(&[
        "bench",
        "--backend",
        "cpu",
        "--filter",
        "scale_single_32768",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("skipped (too large for cpu"), "{stdout}");
    assert!(stdout.contains("--max-cpu-pairs"), "{stdout}");
}

#[test]
fn list_workloads() {
    let out = pagedattn(&["list"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success());
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("| seed")).count(),
        20
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("| scale")).count(),
        8
    );
}

#[test]
fn bad_workload_file_names_file_and_line() {
    let dir = scratch("badfile");
    let path = dir.join("bad.jsonl");
    let good = r#"{"name":"ok","total_q":1,"num_pages":2,"qo_indptr":[0,1],"kv_indptr":[0,1],"kv_indices":[1],"sm_scale":0.1}"#;
    let bad = r#"{"name":"oops","total_q":1,"num_pages":2,"qo_indptr":[0,1],"kv_indptr":[0,1],"kv_indices":[2],"sm_scale":0.1}"#;
    std::fs::write(&path, format!("{good}\n{bad}\n")).unwrap();
    let out = cpu_on_file("bench", &path);
    let err = assert_clean_failure(&out);
    let expected = format!("error: {}:2: workload `oops`", path.display());
    assert!(err.contains(&expected), "{err}");
    assert!(err.contains("kv_indices[0]"), "{err}");

    // A file cut in the middle of its last line.
    std::fs::write(&path, format!("{good}\n{}", &good[..40])).unwrap();
    let out = cpu_on_file("check", &path);
    let err = assert_clean_failure(&out);
    assert!(
        err.contains(&format!("{}:2: truncated", path.display())),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn user_workload_file_runs() {
    let dir = scratch("userfile");
    let path = dir.join("mine.jsonl");
    // q_len > kv_len: the first query row sees no key.
    let w = r#"{"name":"tiny","total_q":3,"num_pages":4,"qo_indptr":[0,3],"kv_indptr":[0,2],"kv_indices":[3,1],"sm_scale":0.0883883}"#;
    std::fs::write(&path, format!("{w}\n")).unwrap();
    let out = cpu_on_file("bench", &path);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("| tiny "), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_file_and_bad_filter() {
    let out = pagedattn(&["--workloads", "/nonexistent/w.jsonl"]);
    let err = assert_clean_failure(&out);
    assert!(err.starts_with("error: /nonexistent/w.jsonl:"), "{err}");
    let out = pagedattn(&["--backend", "cpu", "--filter", "no_such_workload"]);
    let err = assert_clean_failure(&out);
    assert!(
        err.contains("no workload name contains `no_such_workload`"),
        "{err}"
    );
}

#[test]
fn unwritable_json_fails_before_running() {
    let out = pagedattn(&[
        "--backend",
        "cpu",
        "--filter",
        "seed00",
        "--json",
        "/nonexistent/dir/r.json",
    ]);
    let err = assert_clean_failure(&out);
    assert!(err.starts_with("error: /nonexistent/dir/r.json:"), "{err}");
    assert!(
        !text(&out.stdout).contains("seed00_q79_b1"),
        "ran before failing"
    );
}

#[test]
fn bogus_backend_is_refused() {
    let out = pagedattn(&["bench", "--backend", "bogus"]);
    let err = assert_clean_failure(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("invalid value 'bogus'") && err.contains("cpu"),
        "{err}"
    );
    let out = pagedattn(&["bench", "--reps", "many"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Without a GPU, `--backend cuda` fails with one clear line; with one, it runs.
#[test]
fn cuda_backend_fails_cleanly_or_runs() {
    let out = pagedattn(&[
        "bench",
        "--backend",
        "cuda",
        "--filter",
        "seed00",
        "--reps",
        "3",
    ]);
    if out.status.success() {
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains("backend cuda") && stdout.contains("seed00_q79_b1"),
            "{stdout}"
        );
        assert!(
            stdout.contains("| ok ") || stdout.contains("      ok |"),
            "{stdout}"
        );
    } else {
        let err = assert_clean_failure(&out);
        assert!(
            err.starts_with("error: backend `cuda` is not available: "),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// `auto` without a GPU says so in one line and runs the CPU backend.
#[test]
fn auto_falls_back_to_cpu() {
    let out = pagedattn(&["--filter", "seed01", "--reps", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let stdout = text(&out.stdout);
    assert!(!err.contains("panicked"), "{err}");
    if stdout.contains("backend cpu") {
        assert!(err.contains("running the CPU backend"), "{err}");
    } else {
        assert!(stdout.contains("backend cuda"), "{stdout}");
    }
}

/// Counts are checked: `--reps 0` would time nothing, negative values are
/// refused as values (not as unknown flags).
#[test]
fn bad_counts_are_refused() {
    for (args, want) in [
        (&["--reps", "0"][..], "must be at least 1"),
        (&["--reps", "-1"][..], "must be at least 1, got -1"),
        (&["--warmup", "-3"][..], "must be at least 0, got -3"),
        (&["--seed", "-1"][..], "must be at least 0, got -1"),
        (&["--max-cpu-pairs", "-5"][..], "must be at least 0"),
        (&["--cpu-budget-s", "-1"][..], "positive number of seconds"),
        (&["--split", "0"][..], "number of key blocks >= 1"),
        (&["--tile", "m32"][..], "invalid value 'm32'"),
    ] {
        let out = pagedattn(&[&["bench", "--backend", "cpu"][..], args].concat());
        let err = assert_clean_failure(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
    let out = pagedattn(&["check", "--generated", "-2"]);
    assert!(text(&out.stderr).contains("must be at least 0"));
}

/// The report never replaces an input file.
#[test]
fn json_never_overwrites_an_input() {
    let dir = scratch("overwrite");
    let path = dir.join("mine.jsonl");
    let w = r#"{"name":"tiny","total_q":3,"num_pages":4,"qo_indptr":[0,3],"kv_indptr":[0,2],"kv_indices":[3,1],"sm_scale":0.0883883}"#;
    std::fs::write(&path, format!("{w}\n")).unwrap();
    // The same file, also under another spelling of its path.
    let other = dir.join(".").join("mine.jsonl");
    for json in [&path, &other] {
        let out = pagedattn(&[
            "bench",
            "--backend",
            "cpu",
            "--workloads",
            path.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ]);
        let err = assert_clean_failure(&out);
        assert!(err.contains("that is the input"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{w}\n"));
    }
    let cubin = dir.join("variant.cubin");
    std::fs::write(&cubin, b"not a cubin").unwrap();
    let out = pagedattn(&[
        "check",
        "--backend",
        "cpu",
        "--filter",
        "seed00",
        "--attention-cubin",
        cubin.to_str().unwrap(),
        "--json",
        cubin.to_str().unwrap(),
    ]);
    let err = assert_clean_failure(&out);
    assert!(err.contains("that is the input"), "{err}");
    assert_eq!(std::fs::read(&cubin).unwrap(), b"not a cubin");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A workload whose buffers no machine can hold is refused with an error
/// (exit 1), never by an abort when allocating (exit 134).
#[test]
fn huge_workloads_are_refused_not_aborted() {
    let dir = scratch("huge");
    let path = dir.join("huge.jsonl");
    let huge = r#"{"name":"huge","total_q":1,"num_pages":2000000000,"qo_indptr":[0,1],"kv_indptr":[0,1],"kv_indices":[0],"sm_scale":0.1}"#;
    std::fs::write(&path, format!("{huge}\n")).unwrap();
    let out = cpu_on_file("bench", &path);
    let err = assert_clean_failure(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("k_cache bytes is too large"), "{err}");
    // Valid, but more than this machine's memory: an ERROR row, exit 1.
    let big = huge.replace("2000000000", "900000000");
    std::fs::write(&path, format!("{big}\n")).unwrap();
    let out = cpu_on_file("bench", &path);
    let stdout = text(&out.stdout);
    if pagedattn_cli::workload::host_memory_available().is_some_and(|a| a < 1 << 40) {
        assert_eq!(
            out.status.code(),
            Some(1),
            "{stdout}\n{}",
            text(&out.stderr)
        );
        assert!(
            stdout.contains("ERROR") && stdout.contains("bytes of host memory"),
            "{stdout}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
