#!/usr/bin/env bash
# Call 1 (thirty-first session): (1) the tile configuration of short
# prefills on today's kernels: 49 calls of prefill-grid.py (one sequence of
# 256-1536 tokens; 2-8 of 160-512), auto against m64, m128d, m128dv and m128
# forced (each with the automatic split), two rounds; one sequence also on
# m128d with chunks of 2 and 3 blocks forced; (2) m64's split on the 100
# short decode-like calls (four short-decode draws and row-decode): auto,
# m64 with the automatic split and with chunks of 1-4 blocks forced, m128dv,
# one round (call 2 of the thirtieth session ran 1, 2 and 4). Carry ["dist"], built by prepare.sh (this directory).
# (3) codepf / codepf2: every entry point prefetches its own code into the
# L2 at entry (cp.async.bulk.prefetch of 48/128 KB, 64/224 KB: direct /
# persistent, 4 KB a CTA) against the build, two rounds over seed, shapes and
# the first short-decode draw; (4) a probe: the kernel's code read through
# its global address; (5) timeline and codepftl (timeline with codepf's
# prefetch; printf serialises the wgmmas, so stage times, not the shipped
# kernel's) on seed00, seed02 and seed07, one per process; (6) the launch
# floor against the launch shape (bench/micro/launch_floor.cu: grid,
# threads, dynamic shared memory; flushed L2 or not). Build: dist/ by scripts/dist.sh on a980c60 (kernels as
# c8c9888); dist/var/codepf*.cubin: `python3 scripts/variant-src.py codepf /tmp/x`,
# `SRC=/tmp/x bash scripts/build-variant.sh codepf` (codepf2, timeline and
# codepftl likewise).
set -u
for d in /usr/local/cuda/bin; do [ -d "$d" ] && PATH="$PATH:$d"; done
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; t0=$(date +%s)
python3 scripts/make-sweep-workloads.py --short-decode dist/sd.jsonl > /dev/null
trap '(cd "$OUT" && tar czf logs.tgz --remove-files pf pgrid psplit dec tl-* 2>/dev/null); echo "total $(( $(date +%s) - t0 ))s"' EXIT
P=dist/pagedattn
nvcc -arch=sm_90a -o /tmp/probe bench-results/h200-v37-session/code-read-probe.cu 2>&1 | tail -3 && /tmp/probe
nvcc -arch=sm_90a -O3 -o /tmp/launch_floor bench/micro/launch_floor.cu 2>&1 | tail -3 && timeout 60 /tmp/launch_floor
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/pf bash scripts/device-ab.sh base=$P pf=$P@--attention-cubin=dist/var/codepf.cubin \
  pf2=$P@--attention-cubin=dist/var/codepf2.cubin -- --workloads workloads/seed.jsonl --workloads workloads/shapes.jsonl \
  --workloads dist/sd.jsonl > "$OUT/pf.txt" 2>&1
echo "pf $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/pf.txt" | grep -v "rc=0"
grep -E "^\| " "$OUT/pf.txt" | cut -c1-200
for v in timeline codepftl; do for w in seed00 seed02 seed07; do
  timeout 60 $P bench --no-check --attention-cubin dist/var/$v.cubin --workloads workloads/seed.jsonl --filter $w > "$OUT/tl-$v-$w.txt" 2>&1
  echo "== $v $w rc=$?"; grep -E '^TL' "$OUT/tl-$v-$w.txt" | head -12; done; done
python3 bench-results/h200-v37-session/prefill-grid.py dist/pgrid.jsonl
AB_ROUNDS=2 AB_TIMEOUT=100 OUT=$OUT/pgrid bash scripts/device-ab.sh auto=$P m64=$P@--tile=m64 d=$P@--tile=m128d \
  dv=$P@--tile=m128dv m128=$P@--tile=m128 -- --workloads dist/pgrid.jsonl > "$OUT/pgrid.txt" 2>&1
echo "pgrid $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/pgrid.txt" | grep -v "rc=0"
AB_ROUNDS=2 AB_TIMEOUT=60 OUT=$OUT/psplit bash scripts/device-ab.sh d=$P@--tile=m128d ds2=$P@--tile=m128d,--split=2 \
  ds3=$P@--tile=m128d,--split=3 -- --workloads dist/pgrid.jsonl --workloads workloads/seed.jsonl --filter pgrid_b1 --filter seed07 --filter seed08 > "$OUT/psplit.txt" 2>&1
echo "psplit $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/psplit.txt" | grep -v "rc=0"
S=()
for m in short-decode short-decode-holdout short-decode-holdout2 short-decode-holdout3 row-decode; do
  python3 scripts/make-sweep-workloads.py --$m dist/$m.jsonl > /dev/null; S+=(--workloads dist/$m.jsonl); done
C=(auto=$P m64=$P@--tile=m64)
for s in 1 2 3 4; do C+=(m64s$s=$P@--tile=m64,--split=$s); done
C+=(dv=$P@--tile=m128dv)
AB_TIMEOUT=90 OUT=$OUT/dec bash scripts/device-ab.sh "${C[@]}" -- "${S[@]}" > "$OUT/dec.txt" 2>&1
echo "dec $(( $(date +%s) - t0 ))s"; grep -E "rc=" "$OUT/dec.txt" | grep -v "rc=0"
grep -E "^\| " "$OUT/pgrid.txt" | cut -c1-200
python3 bench-results/h200-v37-session/analyse.py "$OUT"
