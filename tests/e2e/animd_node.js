// The real daemon for node e2e tests: startAnimd() runs $ANIMD_BIN on
// 127.0.0.1 port 0 with a temporary data directory and stops it by PID.
'use strict';
const fs = require('fs');
const path = require('path');

// Starts $ANIMD_BIN on 127.0.0.1 port 0 with a temporary data dir; resolves
// to { url, stop } once its ready file names the address (at most 10 s).
// stop() sends SIGTERM to that PID, then SIGKILL after 10 s.
async function startAnimd() {
  const { spawn } = require('child_process');
  const os = require('os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'animd-e2e-'));
  const ready = path.join(dir, 'ready');
  const log = fs.openSync(path.join(dir, 'animd.log'), 'a');
  const child = spawn(process.env.ANIMD_BIN,
    ['--listen', '127.0.0.1:0', '--ready-file', ready, '--data-dir',
     path.join(dir, 'data'), '--workers', '2'],
    { stdio: ['ignore', log, log] });
  let exited = false;
  child.on('exit', () => { exited = true; });
  const stop = async () => {
    if (!exited) {
      process.kill(child.pid, 'SIGTERM');
      for (let i = 0; i < 200 && !exited; i++) await new Promise((r) => setTimeout(r, 50));
      if (!exited) process.kill(child.pid, 'SIGKILL');
    }
    fs.closeSync(log);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 200; i++) {
    if (fs.existsSync(ready) && fs.readFileSync(ready, 'utf8').trim()) {
      return { url: 'http://' + fs.readFileSync(ready, 'utf8').trim(), stop };
    }
    if (exited) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const text = fs.readFileSync(path.join(dir, 'animd.log'), 'utf8');
  await stop();
  throw new Error('animd did not become ready: ' + text.slice(-2000));
}

module.exports = { startAnimd };
