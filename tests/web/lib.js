// Shared helpers of the tests/web scripts (run by tests/unit/e2e_driver.c,
// suite web): start the daemon on a free loopback port and stop it by PID,
// serve pages from a second origin, launch Debian's Chromium through
// playwright-core, and fail with a message. Everything a script starts is
// stopped by cleanup(), which also runs on exit and on an uncaught error.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const toStop = [];

export function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exitCode = 1;
  throw new Error(msg);
}

export function check(cond, msg) {
  if (!cond) fail(msg);
}

/** Starts $ANIMD_BIN with the demo assets and extra flags; {url, origin, pid, log, stop()}. */
export async function startDaemon(flags = []) {
  const bin = process.env.ANIMD_BIN;
  check(bin, 'ANIMD_BIN is not set (run through make test)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'animd-web-'));
  const ready = path.join(dir, 'ready');
  const log = path.join(dir, 'animd.log');
  const out = fs.openSync(log, 'a');
  const child = spawn(bin, ['--listen', '127.0.0.1:0', '--ready-file', ready, '--demo',
    '--workers', '2', '--stream-threads', '1', '--access-log', '', ...flags],
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
    }),
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

/** Serves pages (path -> HTML) on another loopback port: another origin. */
export async function servePages(pages, host = '127.0.0.1') {
  const server = http.createServer((req, res) => {
    const body = pages[req.url.split('?')[0]];
    res.writeHead(body === undefined ? 404 : 200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(body || 'not found');
  });
  await new Promise((r) => server.listen(0, host, r));
  toStop.push(() => new Promise((r) => server.close(r)));
  server.closeAllConnections?.();
  return { server, origin: `http://${host === '127.0.0.1' ? '127.0.0.1' : host}:${server.address().port}` };
}

/** Headless Chromium from Debian, with the flags this machine needs. */
export async function launchBrowser() {
  const { chromium } = await import('playwright-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'animd-chromium-'));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--enable-unsafe-swiftshader', `--user-data-dir=${profile}`],
  });
  toStop.push(async () => {
    await browser.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
  });
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
