// WebSocket streaming with node's `ws` package: binary frames at 60 fps
// for 2 s checked against GET /v1/pose?format=bin, a skinned-mesh stream
// against GET /v1/skin, handshake refusals, and the close codes of
// protocol violations (unmasked frame 1002, invalid UTF-8 1007, a message
// too big 1009).
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const WebSocket = require(path.join(__dirname, 'node_modules', 'ws'));

function fail(msg) {
  console.log('FAIL: ' + msg);
  process.exit(1);
}
function check(cond, msg) {
  if (!cond) fail(msg);
}

const ASSET = {
  skeleton: {
    name: 'wsnode',
    joints: [
      { name: 'root', parent: -1, translation: [0, 0, 0],
        rotation: [0, 0, 0, 1], scale: [1, 1, 1] },
      { name: 'tip', parent: 0, translation: [0, 1, 0],
        rotation: [0, 0, 0, 1], scale: [1, 1, 1] },
    ],
  },
  clips: [{
    name: 'turn',
    tracks: [
      { joint: 'root', path: 'rotation', interpolation: 'LINEAR',
        times: [0, 1, 2],
        values: [0, 0, 0, 1, 0, 0.70710677, 0, 0.70710677, 0, 1, 0, 0] },
      { joint: 'tip', path: 'scale', interpolation: 'LINEAR',
        times: [0, 2], values: [1, 1, 1, 2, 1, 1] },
    ],
  }],
  meshes: [{
    name: 'stick',
    positions: [0, 0, 0, 0, 1, 0, 0, 2, 0, 1, 1, 0],
    normals: [1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0],
    joints: [0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
    weights: [1, 0, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
  }],
};

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'animd-wsnode-'));
const ready = path.join(tmp, 'ready');
const log = fs.openSync(path.join(tmp, 'log'), 'w');
const daemon = spawn(process.env.ANIMD_BIN,
  ['--listen', '127.0.0.1:0', '--ready-file', ready, '--workers', '2'],
  { stdio: ['ignore', log, log] });
let addr = null;
process.on('exit', (code) => {
  try { daemon.kill('SIGKILL'); } catch (e) {}
  // The daemon's log stays when the script failed.
  if (code === 0) fs.rmSync(tmp, { recursive: true, force: true });
  else console.error(`kept ${tmp}`);
});
setTimeout(() => fail('timed out'), 60000).unref();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function request(method, p, body, headers) {
  return new Promise((resolve, reject) => {
    const [host, port] = addr.split(':');
    const req = http.request({ host, port, method, path: p,
      headers: headers || {} }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode,
        headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

function connect() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket('ws://' + addr + '/v1/stream');
    ws.on('open', () => resolve(ws));
    ws.on('error', reject);
  });
}

function closeCode(ws) {
  return new Promise((resolve) => ws.on('close', (code) => resolve(code)));
}

function parseFrame(buf) {
  return {
    index: buf.readUInt32LE(0),
    layout: buf.readUInt32LE(4),
    frame: buf.readUInt32LE(8) + buf.readUInt32LE(12) * 4294967296,
    t: buf.readDoubleLE(16),
    count: buf.readUInt32LE(24),
    elements: buf.readUInt32LE(28),
    floats: buf.subarray(32),
    raw: buf,
  };
}

async function main() {
  for (let i = 0; i < 200 && !addr; i++) {
    if (fs.existsSync(ready) && fs.statSync(ready).size > 0)
      addr = fs.readFileSync(ready, 'utf8').trim();
    else await sleep(50);
  }
  check(addr, 'animd did not start');
  const up = await request('POST', '/v1/assets', JSON.stringify(ASSET),
    { 'Content-Type': 'application/json' });
  check(up.status === 200 || up.status === 201, 'upload ' + up.status +
    ' ' + up.body.toString().slice(0, 200));
  const ids = JSON.parse(up.body);
  const skel = ids.skeletons[0].id, clip = ids.clips[0].id;
  const mesh = ids.meshes[0].id;

  // 1. Binary, model space, 60 fps for 2 s.
  {
    const ws = await connect();
    const frames = [];
    let ack = null, start = 0;
    ws.on('message', (data, isBinary) => {
      if (isBinary) frames.push([performance.now(), parseFrame(data)]);
      else {
        const j = JSON.parse(data);
        if (j.op === 'play') { ack = j; start = performance.now(); }
        else if (j.error) fail('error ' + data);
      }
    });
    ws.send(JSON.stringify({ op: 'play', id: 1, skeleton: skel, clip,
      fps: 60, format: 'bin', space: 'model', wrap: 'loop' }));
    await sleep(2100);
    ws.close(1000);
    await closeCode(ws);
    check(ack && ack.id === 1 && ack.joints === 2, 'play ack');
    const win = frames.filter(([at]) => at - start <= 2000);
    const inTime = win.length;
    // Frames 0..120 are due within 2 s. A late tick skips (and counts)
    // frames rather than bursting, so the frame numbers keep the pace
    // even when the machine delays the server. How many are skipped on a
    // loaded machine is a benchmark's question (make bench-ws); here at
    // least two thirds must arrive.
    // Under a sanitizer the daemon runs several times slower and the
    // last frames of the window may arrive up to a quarter second late.
    const sanitized = /\/(asan|tsan)$/.test(process.env.ANIMD_BUILD || '');
    const span = win[win.length - 1][1].frame + 1;
    check(span >= (sanitized ? 105 : 118) && span <= 123,
      '2 s at 60 fps reached frame ' + span);
    const gaps = span - inTime;
    check(Math.abs(inTime - 120) <= 2 || gaps <= 40,
      '2 s at 60 fps gave ' + inTime + ' frames');
    let prev = -1, prevT = -1;
    for (const [, f] of frames) {
      check(f.index === ack.index && f.layout === 1, 'header');
      check(f.frame > prev, 'frame numbers');
      check(f.count === 32 && f.elements === 2, 'counts');
      const want = Math.fround((f.frame / 60) % 2);
      check(f.t === want, `t ${f.t} != ${want}`);
      // Clip times rise but where the loop wraps (every 120 frames), which
      // a skipped frame near the end may cross late.
      check(f.t > prevT || Math.floor(f.frame / 120) > Math.floor(prev / 120),
        'clip times');
      prev = f.frame; prevT = f.t;
      const ref = await request('GET', `/v1/pose?skeleton=${skel}&clip=` +
        `${clip}&t=${f.t}&wrap=loop&space=model&format=bin`);
      check(ref.status === 200, 'GET /v1/pose ' + ref.status);
      check(ref.body.equals(f.floats), `frame ${f.frame} differs`);
      // A browser gets each message as its own ArrayBuffer: the floats
      // can be viewed in place at byte 32 (16-byte aligned).
      const ab = new Uint8Array(f.raw).buffer;
      const fa = new Float32Array(ab, 32, f.count);
      const refF = new Float32Array(new Uint8Array(ref.body).buffer);
      check(fa.length === 32 && fa.every((v, i) => v === refF[i]),
        'Float32Array view');
    }
    console.log(`ok: binary 60 fps, ${inTime} frames (up to frame ` +
      `${span - 1}) in 2 s, equal to GET /v1/pose`);
  }

  // 2. A skinned-mesh stream with normals, against GET /v1/skin.
  {
    const ws = await connect();
    const frames = [];
    let ack = null;
    ws.on('message', (data, isBinary) => {
      if (isBinary) frames.push(parseFrame(data));
      else {
        const j = JSON.parse(data);
        if (j.error) fail('mesh error ' + data);
        if (j.op === 'play') ack = j;
      }
    });
    ws.send(JSON.stringify({ op: 'play', id: 'm', mesh, clip, fps: 30,
      normals: true, format: 'bin', wrap: 'clamp' }));
    await sleep(400);
    ws.close(1000);
    await closeCode(ws);
    check(ack && ack.layout === 'positions+normals' && ack.vertices === 4,
      'mesh ack ' + JSON.stringify(ack));
    check(frames.length >= 8, 'mesh frames ' + frames.length);
    for (const f of frames) {
      check(f.layout === 3 && f.count === 24 && f.elements === 4, 'layout');
      const ref = await request('GET', `/v1/skin?mesh=${mesh}&clip=${clip}` +
        `&t=${f.t}&normals=1&format=bin`);
      check(ref.status === 200, 'GET /v1/skin ' + ref.status);
      check(ref.body.equals(f.floats), `mesh frame ${f.frame} differs`);
    }
    console.log(`ok: mesh stream, ${frames.length} frames equal to ` +
      'GET /v1/skin');
  }

  // 3. Handshake refusals.
  {
    const r = await request('GET', '/v1/stream', null, {
      Connection: 'Upgrade', Upgrade: 'websocket',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version': '8' });
    check(r.status === 426, 'version 8: ' + r.status);
    check(r.headers['sec-websocket-version'] === '13', 'version header');
    const r2 = await request('GET', '/v1/stream', null, {
      Connection: 'Upgrade', Upgrade: 'websocket',
      'Sec-WebSocket-Key': 'short', 'Sec-WebSocket-Version': '13' });
    check(r2.status === 400, 'bad key: ' + r2.status);
    const e = JSON.parse(r2.body);
    check(e.error.at === 'Sec-WebSocket-Key', 'bad key at');
    console.log('ok: handshake refusals 426 and 400');
  }

  // 4. Protocol violations and their close codes.
  async function violation(send, want, name) {
    const ws = await connect();
    const done = closeCode(ws);
    send(ws);
    const code = await done;
    check(code === want, `${name}: close ${code}, want ${want}`);
    console.log(`ok: ${name} closed with ${code}`);
  }
  await violation((ws) => ws.send('{"op":"stats"}', { mask: false }), 1002,
    'unmasked frame');
  await violation((ws) => ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    { binary: false }), 1007, 'invalid UTF-8 text');
  await violation((ws) => ws.send('x'.repeat(100000)), 1009,
    'message too big');

  // The daemon is still healthy.
  const h = await request('GET', '/healthz');
  check(h.status === 200, 'healthz ' + h.status);
  const m = await request('GET', '/metrics');
  check(/animd_ws_frames_sent_total [1-9]/.test(m.body.toString()),
    'ws metrics');
  const exited = new Promise((resolve) => daemon.on('exit',
    (code, sig) => resolve([code, sig])));
  daemon.kill('SIGTERM');
  const [code, sig] = await exited;
  check(code === 0, `animd exit ${code} ${sig} after SIGTERM`);
  console.log('ok: all; animd exited 0');
  process.exit(0);
}

main().catch((e) => fail(e.stack || String(e)));
