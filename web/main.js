// The demo page's loop: a frame per animation frame; on WebGPU the frame's
// narrowphase is started, then polled between turns of the event loop until
// its results are in (a page cannot wait for the GPU).
import init, { Demo, open_webgpu } from './pkg/gpusat_web.js';

const canvas = document.getElementById('canvas');
const context2d = canvas.getContext('2d');
const status = document.getElementById('status');
const report = document.getElementById('report');
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

let run = 0;          // bumped by a restart, which ends the running loop
let webgpu = null;    // the page's WebGPU device, opened once
let webgpuError = '';
let narrowphaseTotal = 0;

function show(demo, fps) {
  const disagreements = demo.disagreements();
  const first = demo.first_disagreement();
  status.innerHTML =
    `narrowphase: ${demo.backend()}\n` +
    `frame ${demo.frames()}, ${fps.toFixed(1)} frames a second, ` +
    `${demo.pairs()} pairs tested, ${demo.hits()} reported, ` +
    `narrowphase ${demo.narrowphase_ms().toFixed(2)} ms\n` +
    (disagreements === 0
      ? 'check against the CPU reference: no disagreement'
      : `<span class="bad">check against the CPU reference: ${disagreements} disagreements: ${first}</span>`) +
    (webgpuError ? `\nWebGPU: ${webgpuError}` : '');
  report.dataset.frames = demo.frames();
  report.dataset.disagreements = disagreements;
  report.dataset.backend = demo.backend();
  report.dataset.webgpuError = webgpuError;
  report.dataset.fps = fps.toFixed(1);
  // The mean narrowphase time over the frames so far (ms).
  narrowphaseTotal += demo.narrowphase_ms();
  report.dataset.narrowphaseMs = (narrowphaseTotal / Math.max(Number(demo.frames()), 1)).toFixed(2);
  report.dataset.pairs = demo.pairs();
}

async function start() {
  const mine = ++run;
  narrowphaseTotal = 0;
  const particles = Number(document.getElementById('particles').value) || 1200;
  const wanted = document.querySelector('input[name=backend]:checked').value;
  if (wanted === 'webgpu' && webgpu === null && webgpuError === '') {
    try {
      webgpu = await open_webgpu();
    } catch (error) {
      webgpuError = `${error}; running on the CPU`;
    }
  }
  let demo;
  try {
    // A WebGpu handle moves into the demo: open another for the next one.
    const gpu = wanted === 'webgpu' && webgpu !== null ? webgpu : undefined;
    if (gpu !== undefined) webgpu = null;
    demo = new Demo(particles, 7, gpu);
  } catch (error) {
    status.textContent = `cannot start the demo: ${error}`;
    report.dataset.error = String(error);
    return;
  }
  let last = performance.now();
  let fps = 0;
  while (mine === run) {
    try {
      let done = demo.begin_frame();
      while (!done) {
        await nextTurn();
        done = demo.poll_frame();
      }
    } catch (error) {
      status.textContent = `the demo stopped: ${error}`;
      report.dataset.error = String(error);
      return;
    }
    demo.draw(context2d, canvas.width, canvas.height);
    const now = performance.now();
    fps = 0.9 * fps + 0.1 * (1000 / Math.max(now - last, 1e-3));
    last = now;
    show(demo, fps);
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  demo.free();
}

// ?backend=cpu|webgpu and ?particles=N choose at load (the checks use them).
const query = new URLSearchParams(location.search);
if (query.get('backend')) {
  for (const radio of document.querySelectorAll('input[name=backend]')) {
    radio.checked = radio.value === query.get('backend');
  }
}
if (query.get('particles')) {
  document.getElementById('particles').value = query.get('particles');
}

await init();
document.getElementById('restart').addEventListener('click', start);
for (const radio of document.querySelectorAll('input[name=backend]')) {
  radio.addEventListener('change', start);
}
start();
