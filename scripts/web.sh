#!/usr/bin/env bash
# The demo page (web/): builds it (the web crate for wasm32, then
# wasm-bindgen --target web into web/pkg) and serves it on 127.0.0.1.
#
#   scripts/web.sh                 build, and serve on http://127.0.0.1:8765/
#   scripts/web.sh --port N        another port
#   scripts/web.sh --check         build, then load the page in headless
#                                  Chromium on WebGPU and on the CPU, a few
#                                  seconds each, and fail unless frames
#                                  advance with no disagreement with the CPU
#                                  reference (scripts/web_check.py); and
#                                  without WebGPU, the page asked for it
#                                  falls back to the CPU and says why
#   --screenshot FILE              with --check: the WebGPU run's
#                                  screenshot (docs/web.png is one)
#
# Needs the wasm32 target (rustup target add wasm32-unknown-unknown),
# wasm-bindgen-cli of the version in web/Cargo.toml, python3, and for
# --check chromium and chromium-driver (docs/web.md).
set -euo pipefail
cd "$(dirname "$0")/.."

port=8765
check=false
seconds=8
screenshot=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --check) check=true; shift ;;
    --seconds) seconds=$2; shift 2 ;;
    --screenshot) screenshot=(--screenshot "$2"); shift 2 ;;
    *) echo "scripts/web.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

cargo build --release --target wasm32-unknown-unknown --manifest-path web/Cargo.toml
wasm-bindgen --target web --no-typescript --out-dir web/pkg \
  web/target/wasm32-unknown-unknown/release/gpusat_web.wasm

if ! $check; then
  echo "serving the demo page on http://127.0.0.1:$port/ (Ctrl-C to stop)"
  exec python3 -m http.server "$port" --bind 127.0.0.1 --directory web
fi

python3 -m http.server "$port" --bind 127.0.0.1 --directory web >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
  sleep 0.1
done
python3 scripts/web_check.py "http://127.0.0.1:$port/?backend=webgpu" \
  --backend webgpu --seconds "$seconds" "${screenshot[@]}"
python3 scripts/web_check.py "http://127.0.0.1:$port/?backend=cpu" \
  --backend cpu --seconds "$seconds"
# The negative control: Chromium without WebGPU, the page asked for it.
python3 scripts/web_check.py "http://127.0.0.1:$port/?backend=webgpu" \
  --backend webgpu --without-webgpu --seconds 3
