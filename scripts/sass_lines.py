#!/usr/bin/env python3
"""Instructions per source line of each kernel in a cubin, from the line
information that -lineinfo puts in it (nvdisasm -gi):

    python3 scripts/sass_lines.py CUBIN [KERNEL] [--top N] [--by file|line|outer] [--within FILE:LINE]

Each instruction is charged to the innermost frame of its inlining chain
that lies in this project's kernels (crates/pagedattn/kernels), so a CUTLASS
barrier's instructions count for the kernel line that called it.
--by file: per kernel source file; line: per file:line (default); outer: per
line of the outermost kernel function's body that the chain passes through
second (the call site in the kernel's top level). Needs nvdisasm: $NVDISASM,
next to $NVCC, on the PATH, or under .toolchain/cuda. Python 3 standard
library only."""
import argparse, collections, os, re, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KDIR = "crates/pagedattn/kernels/"
FRAME = re.compile(r'File "([^"]+)", line (\d+)')
INSTR = re.compile(r'^\s+/\*[0-9a-f]{4,}\*/\s+(\S.*?)\s*;')


def nvdisasm():
    for c in (os.environ.get("NVDISASM"), os.environ.get("NVCC") and os.path.join(os.path.dirname(os.environ["NVCC"]), "nvdisasm"),
              shutil.which("nvdisasm"), os.path.join(ROOT, ".toolchain/cuda/nvidia/cu13/bin/nvdisasm")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    sys.exit("sass_lines: nvdisasm not found (set NVDISASM or NVCC, or install the toolchain)")


def local(path):
    """the path inside kernels/, or None; a variant's edited copy of kernels/
    (scripts/build-variant.sh with SRC=dir) counts too"""
    i = path.find(KDIR)
    if i >= 0:
        return path[i + len(KDIR):]
    for tail in ("/attention.cu", "/reference.cu"):
        if path.endswith(tail):
            return tail[1:]
    i = path.rfind("/attn/")
    return path[i + 1:] if i >= 0 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cubin")
    ap.add_argument("kernel", nargs="?", help="only this kernel (default: a summary of every kernel)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--by", choices=["file", "line", "outer"], default="line")
    ap.add_argument("--within", metavar="FILE:LINE", help="only instructions whose chain passes through this line "
                    "(e.g. the consumer's call site, from --by outer)")
    a = ap.parse_args()
    out = subprocess.run([nvdisasm(), "-gi", "-c", a.cubin], capture_output=True, text=True, check=True).stdout
    counts = collections.defaultdict(collections.Counter)
    total = collections.Counter()
    selected = collections.Counter()
    kernel, chain, pending_new = None, [], True
    for line in out.splitlines():
        if line.startswith(".text."):
            kernel, chain = line[6:].rstrip(":"), []
            continue
        if kernel is None:
            continue
        if "//## File" in line:
            if pending_new:
                chain, pending_new = [], False
            m = FRAME.search(line)
            if m:
                chain.append((m.group(1), int(m.group(2))))
            continue
        if INSTR.match(line):
            pending_new = True
            total[kernel] += 1
            ours = [(local(f), l) for f, l in chain if local(f)]
            if a.within and a.within not in ("%s:%d" % o for o in ours):
                continue
            selected[kernel] += 1
            if not ours:
                key = "(no line)"
            elif a.by == "file":
                key = ours[0][0]
            elif a.by == "outer":
                key = "%s:%d" % ours[-2] if len(ours) > 1 else "%s:%d" % ours[-1]
            else:
                key = "%s:%d" % ours[0]
            counts[kernel][key] += 1
    if not a.kernel:
        for k in total:
            print(f"{k}: {total[k]} instructions")
        return
    if a.kernel not in total:
        sys.exit(f"sass_lines: no kernel {a.kernel} (have: {', '.join(total)})")
    within = f", {selected[a.kernel]} within {a.within}" if a.within else ""
    print(f"{a.kernel}: {total[a.kernel]} instructions{within}, by {a.by} (% of the kernel)")
    for key, n in counts[a.kernel].most_common(a.top):
        print(f"{n:7d} {100 * n / total[a.kernel]:5.1f}%  {key}")


if __name__ == "__main__":
    main()
