#!/usr/bin/env python3
"""Loads gpusat's demo page in headless Chromium (through chromedriver's
WebDriver protocol, standard library only), lets it run, and checks what the
page reports: frames advance, no disagreement with the CPU reference, the
backend asked for. Prints one line of figures; saves a screenshot.

Usage: web_check.py URL --seconds S --backend webgpu|cpu [--screenshot FILE]
Chromium's flags come from webdriver.json at the repository's root
(headless, no sandbox as root, WebGPU on its software adapter).
"""
import argparse
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read() or b"{}").get("value")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--backend", choices=["webgpu", "cpu"], required=True)
    parser.add_argument("--min-frames", type=int, default=20)
    parser.add_argument("--screenshot")
    parser.add_argument("--without-webgpu", action="store_true",
                        help="Chromium without --enable-unsafe-webgpu (so without an adapter): "
                             "the page asked for WebGPU must fall back to the CPU and say why")
    args = parser.parse_args()

    with open(os.path.join(ROOT, "webdriver.json")) as f:
        capabilities = json.load(f)
    if args.without_webgpu:
        options = capabilities["goog:chromeOptions"]
        options["args"] = [a for a in options["args"] if a != "--enable-unsafe-webgpu"]
    driver = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
    if not driver:
        sys.exit("web_check: no chromedriver (install chromium-driver, or set CHROMEDRIVER)")
    port = free_port()
    process = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                call(base, "GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        # A new browser (the WebDriver protocol's endpoint and field names).
        browser = call(base, "POST", "/session",
                       {"capabilities": {"alwaysMatch": capabilities}})["sessionId"]
        path = f"/session/{browser}"
        try:
            call(base, "POST", path + "/window/rect", {"width": 960, "height": 1000})
            call(base, "POST", path + "/url", {"url": args.url})
            time.sleep(args.seconds)
            report = call(base, "POST", path + "/execute/sync", {
                "script": "return Object.assign({}, document.getElementById('report').dataset);",
                "args": [],
            })
            if args.screenshot:
                png = base64.b64decode(call(base, "GET", path + "/screenshot"))
                with open(args.screenshot, "wb") as f:
                    f.write(png)
        finally:
            call(base, "DELETE", path)
    finally:
        process.terminate()
        process.wait()

    frames = int(report.get("frames") or 0)
    disagreements = int(report.get("disagreements") or 0)
    backend = report.get("backend") or ""
    print(f"web_check: {args.backend}{' without WebGPU' if args.without_webgpu else ''}: "
          f"{frames} frames in {args.seconds:g} s, "
          f"{report.get('fps', '?')} frames a second (the display's rate at most), "
          f"narrowphase {report.get('narrowphaseMs', '?')} ms a frame on "
          f"{report.get('pairs', '?')} pairs, {disagreements} disagreements, "
          f"backend {backend!r}")
    problems = []
    if report.get("error"):
        problems.append(f"the page stopped: {report['error']}")
    if frames < args.min_frames:
        problems.append(f"{frames} frames, fewer than {args.min_frames}")
    if disagreements:
        problems.append(f"{disagreements} disagreements with the CPU reference")
    if args.without_webgpu:
        if not backend.startswith("CPU") or not report.get("webgpuError"):
            problems.append(f"without WebGPU: ran on {backend!r}, the page said "
                            f"{report.get('webgpuError')!r} of WebGPU")
    elif args.backend == "webgpu" and not backend.startswith("WebGPU"):
        problems.append(f"asked for WebGPU, ran on {backend!r}")
    if args.backend == "cpu" and not backend.startswith("CPU"):
        problems.append(f"asked for the CPU, ran on {backend!r}")
    if problems:
        sys.exit("web_check: " + "; ".join(problems))


if __name__ == "__main__":
    main()
