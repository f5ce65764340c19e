#!/usr/bin/env bash
# The standard hardware measurement: one run on a machine with a GPU.
#
# Such machines have no Rust toolchain and no network, so the release
# binary is built beforehand (`cargo build --release -p gpusat-cli`) and
# travels with the working tree, as do the Vulkan loader's packages where
# the machine lacks them (a folder of .deb files, unpacked here first).
#
#   scripts/gpu-bench.sh [--bin PATH] [--baseline PATH] [--debs DIR] [--out DIR] [--quick]
#                        [--only STEP,STEP...] [--wheels DIR]
#
# With --wheels, a folder of wheels built beforehand (the package's, by
# `maturin build --release -m python/Cargo.toml`, and numpy's for the
# machine's Python, by `pip download numpy --only-binary=:all:
# --python-version 3.X`), the step `python` installs them in a virtual
# environment and measures the Python call's overhead (python-overhead.csv).
#
# With --baseline, the resident frame's step runs twice more, the baseline
# binary and then this one again (frame-baseline.csv, frame-again.csv): a
# before/after on one machine, since machines of one kind differ.
#
# Every row is checked against the CPU reference before it is timed (the
# bench and the demos' --check fail on a disagreement). It writes one CSV
# per measurement under docs/bench/<gpu name>/ (or --out), the logs, and
# summary.md (with the commit: GPUSAT_GIT_REV where the copy has no
# history; with `gpusat info`: the adapter, its features, every entry
# point's SPIR-V size); a step that fails or runs out of its time is named
# in the summary and the others still run. It is sized to finish in under
# 8 minutes on a 16-core machine with a GPU; --quick runs a smaller set,
# --only the steps named (compile, bench2d-1m, bench2d-10m, bench2d-loops,
# bench2d-rounded, bench2d-rounded-polygons, frame,
# bench3d-small, bench3d-large, bench3d-rounded, demo2d-gpu, demo2d-resident,
# demo3d-gpu, python).
set -uo pipefail
cd "$(dirname "$0")/.."

bin=target/release/gpusat
baseline=
debs=.gl
out=
quick=0
only=
wheels=
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --debs) debs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --only) only=,$2,; shift 2 ;;
    --wheels) wheels=$2; shift 2 ;;
    *) echo "gpu-bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "gpu-bench.sh: no binary at $bin (cargo build --release -p gpusat-cli)" >&2; exit 2; }

# The Vulkan loader, where the machine has none.
if ! ldconfig -p 2>/dev/null | grep -q libvulkan.so.1; then
  if [ -d "$debs" ] && ls "$debs"/*.deb >/dev/null 2>&1; then
    for f in "$debs"/*.deb; do dpkg -x "$f" /; done
    ldconfig
  fi
fi
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$nvidia_icd" ]; then
  export VK_DRIVER_FILES=$nvidia_icd
fi

started=$(date +%s)
info=$("$bin" info 2>&1)
gpu=$(printf '%s\n' "$info" | sed -n 's/^the best adapter: *//p' | head -1)
gpu_slug=$(printf '%s' "${gpu:-unknown}" | sed 's/ *(.*//' | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')
[ -n "$out" ] || out=docs/bench/${gpu_slug:-unknown}
mkdir -p "$out"
summary=$out/summary.md
{
  echo "# gpusat on ${gpu:-an unknown adapter}"
  echo
  echo "- date: $(date -u +%Y-%m-%d)"
  echo "- binary: $("$bin" --version 2>/dev/null), git ${GPUSAT_GIT_REV:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) threads"
  if command -v nvidia-smi >/dev/null; then
    echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null)"
  fi
  echo
  echo '```'
  printf '%s\n' "$info"
  echo '```'
  echo
  echo "| step | status | seconds |"
  echo "|---|---|---:|"
} >"$summary"

# step NAME LIMIT_SECONDS COMMAND...: runs one measurement with its log,
# for at most LIMIT_SECONDS and never past the whole run's deadline
# (GPUSAT_BENCH_SECONDS, 450 by default).
deadline=$(( started + ${GPUSAT_BENCH_SECONDS:-450} ))
failed=0
step() {
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s) status
  # --only: the steps named (the baseline's frame steps go with frame).
  case "$only" in
    ''|*,"${name%%-baseline}",*|*,"${name%%-again}",*) ;;
    *) return ;;
  esac
  local left=$(( deadline - t0 ))
  if [ "$left" -lt 15 ]; then
    echo "| $name | skipped: the run's deadline | 0 |" >>"$summary"
    failed=1
    return
  fi
  [ "$left" -lt "$limit" ] && limit=$left
  echo "== $name: $*" | tee -a "$out/log.txt"
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  status=$?
  cat "$out/$name.log" >>"$out/log.txt"
  tail -n 40 "$out/$name.log"
  case $status in
    0) status=ok ;;
    124) status="timed out after ${limit} s"; failed=1 ;;
    *) status="failed ($status)"; failed=1 ;;
  esac
  echo "| $name | $status | $(( $(date +%s) - t0 )) |" >>"$summary"
}

if [ "$quick" = 1 ]; then samples=3; time=0.2; else samples=5; time=0.3; fi

# Every kind's pipeline created once (a driver's first compile of each
# entry point; its disk cache serves the steps below), as a CSV too.
step compile 240 "$bin" info --compile
[ -f "$out/compile.log" ] && awk '/^pipeline creation/ { on = 1; print "kernel,entry_point,ms"; next }
     on && $1 ~ /^(2D|3D)$/ { print $1 "," $2 "," $3 }' "$out/compile.log" >"$out/compile.csv"

# 2D: the SAT kernel and end to end on 8-gons of the reference distribution.
step bench2d-1m 60 "$bin" bench --sizes 1000000 \
  --backends cpu,cpu-parallel,gpu,gpu-kernel --samples $samples --time $time --csv "$out/bench2d-1m.csv"
step bench2d-10m 90 "$bin" bench --sizes 10000000 \
  --backends cpu-parallel,gpu,gpu-kernel --samples 3 --time $time --csv "$out/bench2d-10m.csv"

# The same 2D pairs through the kernel's loop kind instead of its
# straight-line kinds (GpuOptions::polygon_loops): which a GPU runs faster.
step bench2d-loops 60 "$bin" bench --sizes 1000000,10000000 --polygon-loops \
  --backends gpu,gpu-kernel --samples 3 --time $time --csv "$out/bench2d-loops.csv"

# 2D shapes with a radius through the kernel's kind `rounded`: capsules and
# rounded 8-gons.
step bench2d-rounded 60 "$bin" bench --kind capsules --sizes 1000000 \
  --backends cpu-parallel,gpu,gpu-kernel --samples 3 --time $time --csv "$out/bench2d-capsules.csv"
step bench2d-rounded-polygons 60 "$bin" bench --kind rounded --sizes 1000000 \
  --backends cpu-parallel,gpu,gpu-kernel --samples 3 --time $time --csv "$out/bench2d-rounded.csv"

# The GPU-resident frame against the CPU frame and today's GPU frame.
step frame 120 "$bin" bench --sizes 10000,100000,1000000 \
  --backends gpu-resident --samples $samples --time $time --csv "$out/frame.csv"

if [ -n "$baseline" ]; then
  step frame-baseline 120 "$baseline" bench --sizes 10000,100000,1000000 \
    --backends gpu-resident --samples $samples --time $time --csv "$out/frame-baseline.csv"
  step frame-again 120 "$bin" bench --sizes 10000,100000,1000000 \
    --backends gpu-resident --samples $samples --time $time --csv "$out/frame-again.csv"
fi

# 3D: the small kinds at 1M pairs, the hulls above 64 vertices at 100,000
# (their first batch also pays for compiling the large kinds' pipelines).
step bench3d-small 120 "$bin" bench --dim 3 --sizes 1000000 --shapes boxes,16,32,64 \
  --backends cpu-parallel,gpu,gpu-kernel --samples 3 --time $time --csv "$out/bench3d-small.csv"
step bench3d-large 150 "$bin" bench --dim 3 --sizes 100000 --shapes 128,256 \
  --backends cpu-parallel,gpu,gpu-kernel --samples 3 --time $time --csv "$out/bench3d-large.csv"
# 3D shapes with a radius through the kernel's kind `rounded`: capsules,
# half capsules and half 32-vertex hulls, rounded 32-vertex hulls.
step bench3d-rounded 90 "$bin" bench --dim 3 --sizes 100000 --shapes capsules,capsules32,rounded32 \
  --backends cpu-parallel,gpu,gpu-kernel --samples 3 --time $time --csv "$out/bench3d-rounded.csv"

# The demos, every frame checked against the CPU reference.
if [ "$quick" = 1 ]; then frames=60; else frames=300; fi
step demo2d-gpu 45 "$bin" demo --backend gpu --frames $frames --check
step demo2d-resident 45 "$bin" demo --backend gpu-resident --frames $frames --check
step demo3d-gpu 60 "$bin" demo --dim 3 --backend gpu --frames $((frames / 2)) --check

# The Python package's call against the library call it wraps, from a
# directory of its own (so that the installed package is imported).
if [ -n "$wheels" ]; then
  step python 120 env WHEELS="$(cd "$wheels" && pwd)" CSV="$(cd "$out" && pwd)/python-overhead.csv" \
    ROOT="$PWD" bash -c 'venv=$(mktemp -d)/venv
      python3 -m venv "$venv" && "$venv/bin/pip" install -q --no-index "$WHEELS"/*.whl &&
      cd "$(dirname "$venv")" && "$venv/bin/python" "$ROOT/python/bench/overhead.py" \
        --samples 9 --backends cpu,cpu-parallel,gpu | tee "$CSV"'
fi

echo >>"$summary"
echo "Total: $(( $(date +%s) - started )) s." >>"$summary"
cat "$summary"
exit $failed
