#!/usr/bin/env python3
"""Compares the SASS of two cubins kernel by kernel (addresses and encodings
ignored), to show that a change left the kernels it should not touch
instruction for instruction the same.

    python3 scripts/sass-diff.py OLD.cubin NEW.cubin            # same / DIFF per kernel
    python3 scripts/sass-diff.py OLD.cubin NEW.cubin KERNEL [N] # the first N lines of a unified diff

cuobjdump: $CUOBJDUMP, else the toolchain of scripts/install-cuda-toolchain.sh
($PAGEDATTN_TOOLCHAIN_DIR or .toolchain/cuda), else the PATH.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path


def cuobjdump():
    if os.environ.get("CUOBJDUMP"):
        return os.environ["CUOBJDUMP"]
    root = Path(__file__).resolve().parent.parent
    tc = Path(os.environ.get("PAGEDATTN_TOOLCHAIN_DIR", root / ".toolchain" / "cuda"))
    c = tc / "nvidia" / "cu13" / "bin" / "cuobjdump"
    return str(c) if c.exists() else (shutil.which("cuobjdump") or sys.exit("sass-diff: no cuobjdump"))


def kernels(cubin):
    """Kernel name -> its instructions, without addresses, encodings or branch targets' offsets."""
    out = subprocess.run([cuobjdump(), "-sass", cubin], capture_output=True, text=True, check=True).stdout
    d, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            cur = d.setdefault(m.group(1), [])
            continue
        if cur is None:
            continue
        line = re.sub(r"^\s*/\*[0-9a-f]+\*/", "", line).strip()
        if line.startswith("/*"):
            continue  # an encoding line
        cur.append(re.sub(r"/\*.*?\*/", "", line).strip())
    return d


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
    if len(sys.argv) > 3:
        k = sys.argv[3]
        n = int(sys.argv[4]) if len(sys.argv) > 4 else 60
        diff = list(difflib.unified_diff(a.get(k, []), b.get(k, []), lineterm="", n=1))
        print(f"{len(diff)} diff lines")
        print("\n".join(diff[:n]))
        return
    for k in sorted(set(a) | set(b)):
        state = "same" if a.get(k) == b.get(k) else "DIFF"
        print(f"{k:40s} {state}  ({len(a.get(k, []))} / {len(b.get(k, []))} lines)")


if __name__ == "__main__":
    main()
