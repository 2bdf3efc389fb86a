//! Records the commit the binary is built from (`PAGEDATTN_BUILD_COMMIT`),
//! for reports made on machines without the git tree: the variable's value
//! when the build's environment sets it, else `git` here. Writes nothing.
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git").args(args).output().ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=PAGEDATTN_BUILD_COMMIT");
    println!("cargo:rerun-if-changed=../pagedattn/kernels");
    if std::env::var_os("PAGEDATTN_BUILD_COMMIT").is_some_and(|c| !c.is_empty()) {
        return; // rustc sees the environment's value
    }
    if let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) {
        // Uncommitted kernel sources make the commit name a lie: say so.
        let dirty = git(&["status", "--porcelain", "--", "../pagedattn/kernels"])
            .is_some_and(|s| !s.is_empty());
        println!(
            "cargo:rustc-env=PAGEDATTN_BUILD_COMMIT={commit}{}",
            if dirty { "+kernels-dirty" } else { "" }
        );
        // Rerun when HEAD moves (the paths of a worktree's own git dir too).
        for f in ["HEAD", "logs/HEAD"] {
            if let Some(p) = git(&["rev-parse", "--path-format=absolute", "--git-path", f]) {
                println!("cargo:rerun-if-changed={p}");
            }
        }
    }
}
