// examples/vite as a developer runs it: the daemon, then `npm run dev`
// (Vite, the example's own node_modules) on a free loopback port with
// ANIMD_URL pointing at the daemon, and the page in headless Chromium. The
// page's pose (animd-client through the dev server's /v1 proxy) equals
// GET /v1/pose asked of the daemon directly, and its stream (the proxied
// /v1/stream WebSocket) delivers frames of 16 floats per joint. Vite and
// its children are stopped by their process group's PID.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { VIEW, check, launchBrowser, maxDiff, run, startDaemon } from './lib.js';

const example = path.resolve('examples/vite');

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** npm run dev in its own process group; {url, stop()}. */
async function startVite(daemonUrl) {
  const port = await freePort();
  const log = [];
  const child = spawn('npm', ['run', 'dev', '--', '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd: example, detached: true, env: { ...process.env, ANIMD_URL: daemonUrl }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (b) => log.push(b.toString()));
  child.stderr.on('data', (b) => log.push(b.toString()));
  const groupAlive = () => {
    try {
      process.kill(-child.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  // SIGTERM to the group (npm, its shell, vite); npm may exit before vite
  // does, so the group is waited for, then killed after 10 s.
  const stop = async () => {
    if (!groupAlive()) return;
    process.kill(-child.pid, 'SIGTERM');
    const end = Date.now() + 10000;
    while (groupAlive() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    if (groupAlive()) process.kill(-child.pid, 'SIGKILL');
  };
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 60000;
  for (;;) {
    if (child.exitCode !== null) throw new Error('vite exited: ' + log.join(''));
    try {
      const res = await fetch(url + '/');
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) {
      await stop();
      throw new Error('vite did not answer in 60 s: ' + log.join(''));
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, pid: child.pid, stop, log };
}

run(async () => {
  check(fs.existsSync(path.join(example, 'node_modules/vite')), 'examples/vite/node_modules is missing: run make deps-test');
  const d = await startDaemon();
  const vite = await startVite(d.url);
  try {
    const browser = await launchBrowser();
    const page = await browser.newPage({ viewport: VIEW });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(vite.url + '/');
    await page.waitForFunction(() => window.animdExample &&
      (window.animdExample.error || window.animdExample.stream.frames >= 5), null, { timeout: 60000 });
    const got = await page.evaluate(() => window.animdExample);
    check(!got.error, 'page error: ' + JSON.stringify(got.error));
    const ref = new Float32Array(await (await fetch(`${d.url}/v1/pose?skeleton=demo-humanoid&clip=${got.pose.clip}` +
      `&t=0.5&space=model&format=bin`)).arrayBuffer());
    console.log(JSON.stringify({ vite: vite.url, skeleton: got.pose.skeleton, clip: got.pose.clip,
      joints: got.pose.joints, poseMaxDiff: maxDiff(Float32Array.from(got.pose.matrices), ref), stream: got.stream }));
    check(got.pose.skeleton === 'demo-humanoid' && got.pose.joints === 17, 'pose ' + got.pose.skeleton);
    check(maxDiff(Float32Array.from(got.pose.matrices), ref) === 0, 'the page\'s pose differs from the daemon\'s');
    check(got.stream.frames >= 5 && got.stream.floats === 16 * 17 && got.stream.lastFrame >= 4,
      'stream ' + JSON.stringify(got.stream));
    check(errors.length === 0, 'page errors: ' + errors.join('; '));
  } finally {
    await vite.stop();
  }
  const end = Date.now() + 5000;
  let alive = true;
  while (alive && Date.now() < end) {
    try {
      process.kill(-vite.pid, 0);
      await new Promise((r) => setTimeout(r, 50));
    } catch {
      alive = false;
    }
  }
  check(!alive, 'vite\'s process group is still there');
});
