// Shared helpers of the tests/web scripts (run by tests/unit/e2e_driver.c,
// suite web): start the daemon on a free loopback port and stop it by PID,
// serve pages from a second origin, launch Debian's Chromium through
// playwright-core, decode its PNG screenshots, and fail with a message. Everything a script starts is
// stopped by cleanup(), which also runs on exit and on an uncaught error.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const toStop = [];

/** three.js from npm as make deps installs it (web/three), served under /three/. */
export const THREE_DIR = path.resolve('web/three/node_modules/three');

export function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exitCode = 1;
  throw new Error(msg);
}

export function check(cond, msg) {
  if (!cond) fail(msg);
}

/** Removes a script's temp directory, or names it when the script has
 * failed (its daemon's log is there). */
function removeUnlessFailed(dir) {
  if (process.exitCode) console.error(`kept ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

/** Starts $ANIMD_BIN with the demo assets, three.js under /three/ and extra
 * flags; {url, origin, pid, log, stop()}. */
export async function startDaemon(flags = []) {
  const bin = process.env.ANIMD_BIN;
  check(bin, 'ANIMD_BIN is not set (run through make test)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'animd-web-'));
  const ready = path.join(dir, 'ready');
  const log = path.join(dir, 'animd.log');
  const out = fs.openSync(log, 'a');
  const child = spawn(bin, ['--listen', '127.0.0.1:0', '--ready-file', ready, '--demo',
    '--workers', '2', '--stream-threads', '1', '--access-log', '', '--three-dir', THREE_DIR, ...flags],
  { stdio: ['ignore', out, out] });
  const d = {
    pid: child.pid,
    log,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      child.once('exit', () => { clearTimeout(timer); resolve(); });
      child.kill('SIGTERM');
      return undefined;
    }).then(() => removeUnlessFailed(dir)),
  };
  toStop.push(d.stop);
  const end = Date.now() + 10000;
  while (!fs.existsSync(ready) || fs.readFileSync(ready, 'utf8') === '') {
    if (child.exitCode !== null) fail('animd exited at start: ' + fs.readFileSync(log, 'utf8'));
    if (Date.now() > end) fail('animd did not become ready in 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  d.url = 'http://' + fs.readFileSync(ready, 'utf8').trim();
  return d;
}

/** Serves one HTML page on another loopback port: another origin. Set its
 * `html` before a browser asks for it. */
export async function servePage() {
  const page = { html: '' };
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page.html);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  toStop.push(() => new Promise((r) => {
    server.closeAllConnections();
    server.close(r);
  }));
  page.origin = `http://127.0.0.1:${server.address().port}`;
  return page;
}

/** Headless Chromium from Debian, with the flags this machine needs (and a
 * fresh profile: playwright makes a new empty user-data-dir per launch). */
export async function launchBrowser() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--enable-unsafe-swiftshader'],
  });
  toStop.push(() => browser.close());
  return browser;
}

/** Stops everything started, newest first. */
export async function cleanup() {
  while (toStop.length) await toStop.pop()().catch(() => {});
}

/** Runs main, then cleanup; exit status 1 on any failure. */
export function run(main) {
  const guard = setTimeout(() => {
    console.error('FAIL: the script took over 200 s');
    process.exit(1);
  }, 200000);
  main()
    .catch((e) => {
      console.error(e && e.stack ? e.stack : e);
      process.exitCode = 1;
    })
    .finally(async () => {
      await cleanup();
      clearTimeout(guard);
    });
}

/** The Float32Array of a binary HTTP answer, fetched by Node (the reference). */
export async function floatsOf(url, headers = {}) {
  const res = await fetch(url, { headers });
  check(res.ok, `${url}: ${res.status}`);
  return new Float32Array(await res.arrayBuffer());
}

/** Largest absolute difference of two equal-length arrays. */
export function maxDiff(a, b) {
  check(a.length === b.length, `lengths differ: ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/**
 * Decodes an 8-bit RGB or RGBA PNG (what Chromium's screenshots are) into
 * {width, height, rgba: Uint8Array}: the chunks, zlib (node:zlib) and the
 * five scanline filters of the PNG specification.
 */
export function decodePng(buf) {
  check(buf.readUInt32BE(0) === 0x89504e47, 'not a PNG');
  let off = 8, width = 0, height = 0, channels = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      check(data[8] === 8 && (data[9] === 2 || data[9] === 6) && data[12] === 0,
        'only 8-bit RGB/RGBA, not interlaced');
      channels = data[9] === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      idat.push(data);
    }
    off += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const img = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? img[y * stride + x - channels] : 0;
      const b = y > 0 ? img[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? img[(y - 1) * stride + x - channels] : 0;
      let v = line[x];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      img[y * stride + x] = v & 255;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    for (let k = 0; k < 3; k++) rgba[4 * i + k] = img[i * channels + k];
    rgba[4 * i + 3] = channels === 4 ? img[i * channels + 3] : 255;
  }
  return { width, height, rgba };
}

// ---- the viewer in a browser -------------------------------------------------

export const BACKGROUND = [0x10, 0x14, 0x18]; // the viewer's scene.background
export const VIEW = { width: 800, height: 600 };

/** True when the pixel differs clearly from the background. */
export function drawn(img, x, y) {
  if (x < 0 || y < 0 || x >= img.width || y >= img.height) return false;
  const i = 4 * (y * img.width + x);
  return Math.abs(img.rgba[i] - BACKGROUND[0]) + Math.abs(img.rgba[i + 1] - BACKGROUND[1]) +
    Math.abs(img.rgba[i + 2] - BACKGROUND[2]) > 40;
}

/** Page pixel of a model-space point: projection * view * p, then the canvas' rectangle. */
export function project(state, x, y, z) {
  const P = state.camera.projection, V = state.camera.view;
  const v = [0, 1, 2, 3].map((r) => V[r] * x + V[4 + r] * y + V[8 + r] * z + V[12 + r]);
  const c = [0, 1, 2, 3].map((r) => P[r] * v[0] + P[4 + r] * v[1] + P[8 + r] * v[2] + P[12 + r] * v[3]);
  const { left, top, width, height } = state.canvas;
  return [left + ((c[0] / c[3] + 1) / 2) * width, top + ((1 - c[1] / c[3]) / 2) * height];
}

/** Fractions of points whose pixel (exact, or within one pixel) is drawn.
 * Every vertex of the demo mesh is a corner of its boxes, so many sit on
 * the silhouette's edge: the exact pixel may fall just outside it. */
export function overlap(img, state, points) {
  let exact = 0, near = 0;
  const n = points.length / 3;
  for (let i = 0; i < n; i++) {
    const [px, py] = project(state, points[3 * i], points[3 * i + 1], points[3 * i + 2]);
    const x = Math.floor(px), y = Math.floor(py);
    if (drawn(img, x, y)) exact++;
    let any = false;
    for (let dy = -1; dy <= 1 && !any; dy++) for (let dx = -1; dx <= 1 && !any; dx++) any = drawn(img, x + dx, y + dy);
    if (any) near++;
  }
  return { exact: exact / n, near: near / n };
}

/** Opens the viewer at url and waits for its first frame (or error): {state, img}. */
export async function openViewer(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.animdViewer && (window.animdViewer.ready || window.animdViewer.error),
    null, { timeout: 30000 });
  const state = await page.evaluate(() => window.animdViewer);
  check(!state.error, `${url}: ${JSON.stringify(state.error)}`);
  const img = decodePng(await page.screenshot());
  return { state, img };
}
