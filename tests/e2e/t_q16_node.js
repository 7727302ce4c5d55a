// encoding=q16 read in Node by a decoder written here from the layout
// alone, and by the decoder printed in docs/api.md (taken from it as it is),
// against the float32 answers: GET /v1/skin single frames and a range, and
// a WebSocket stream, with and without normals, on the demo mesh and on
// CesiumMan when the shared assets are there.
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

const SHARED = process.env.ANIMD_SHARED ||
  path.join(__dirname, '..', '..', '..', 'shared');
const EPS32 = Math.pow(2, -23);

// ---- the decoders -----------------------------------------------------------

// From the layout: box, u16 positions, octahedral i16 normals, padding.
function decodeHere(buf, v, normals) {
  const lo = [], hi = [];
  for (let a = 0; a < 3; a++) {
    lo.push(buf.readFloatLE(4 * a));
    hi.push(buf.readFloatLE(12 + 4 * a));
  }
  const pos = new Float64Array(3 * v);
  for (let k = 0; k < 3 * v; k++) {
    const a = k % 3;
    pos[k] = lo[a] + buf.readUInt16LE(24 + 2 * k) / 65535 * (hi[a] - lo[a]);
  }
  let nrm = null, end = 24 + 6 * v;
  if (normals) {
    nrm = new Float64Array(3 * v);
    for (let i = 0; i < v; i++) {
      const u = buf.readInt16LE(end + 4 * i) / 32767;
      const w = buf.readInt16LE(end + 4 * i + 2) / 32767;
      let x = u, y = w;
      const z = 1 - Math.abs(u) - Math.abs(w);
      if (z < 0) {
        x = (1 - Math.abs(w)) * (u >= 0 ? 1 : -1);
        y = (1 - Math.abs(u)) * (w >= 0 ? 1 : -1);
      }
      const l = Math.sqrt(x * x + y * y + z * z);
      nrm[3 * i] = x / l; nrm[3 * i + 1] = y / l; nrm[3 * i + 2] = z / l;
    }
    end += 4 * v;
  }
  check(buf.length === ((end + 3) & ~3), 'q16 size ' + buf.length);
  for (let k = end; k < buf.length; k++) check(buf[k] === 0, 'padding');
  return { lo, hi, positions: pos, normals: nrm };
}

// docs/api.md's, as printed there.
function readmeDecoder() {
  const text = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'api.md'),
    'utf8');
  const m = text.match(/```js\n(\/\/ q16 decoder[\s\S]*?)```/);
  check(m, 'docs/api.md has no q16 decoder block');
  return new Function(m[1] + '\nreturn decodeQ16;')();
}

function compare(what, f32buf, q, v, normals, decodeQ16) {
  const f = new Float32Array(f32buf.buffer.slice(f32buf.byteOffset,
    f32buf.byteOffset + f32buf.length));
  check(f.length === 3 * v * (normals ? 2 : 1), what + ': float count');
  const d = decodeHere(q, v, normals);
  const view = new DataView(q.buffer, q.byteOffset, q.length);
  const r = decodeQ16(view, v, normals);
  let worstN = 0;
  for (let k = 0; k < 3 * v; k++) {
    const a = k % 3;
    const tol = (d.hi[a] - d.lo[a]) / 131070 +
      4 * EPS32 * Math.max(Math.abs(d.lo[a]), Math.abs(d.hi[a]));
    check(Math.abs(d.positions[k] - f[k]) <= tol, what + ': position ' + k +
      ' ' + f[k] + ' decoded ' + d.positions[k]);
    check(Math.abs(r.positions[k] - f[k]) <= tol, what +
      ': README decoder position ' + k);
  }
  if (normals) {
    for (let i = 0; i < v; i++) {
      const n = f.subarray(3 * v + 3 * i, 3 * v + 3 * i + 3);
      if (n[0] === 0 && n[1] === 0 && n[2] === 0) continue;
      for (const [name, m] of [['here', d.normals], ['README', r.normals]]) {
        const x = m[3 * i], y = m[3 * i + 1], z = m[3 * i + 2];
        const cx = n[1] * z - n[2] * y, cy = n[2] * x - n[0] * z,
          cz = n[0] * y - n[1] * x;
        const ang = Math.atan2(Math.hypot(cx, cy, cz),
          n[0] * x + n[1] * y + n[2] * z) * 180 / Math.PI;
        check(ang <= 0.01, what + ': ' + name + ' normal ' + i + ' off by ' +
          ang + ' degrees');
        if (ang > worstN) worstN = ang;
      }
    }
  }
  return worstN;
}

// ---- the daemon --------------------------------------------------------------

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'animd-q16node-'));
const ready = path.join(tmp, 'ready');
const log = fs.openSync(path.join(tmp, 'log'), 'w');
const daemon = spawn(process.env.ANIMD_BIN,
  ['--listen', '127.0.0.1:0', '--ready-file', ready, '--workers', '2',
    '--demo'], { stdio: ['ignore', log, log] });
let addr = null;
process.on('exit', (code) => {
  try { daemon.kill('SIGKILL'); } catch (e) {}
  // The daemon's log stays when the script failed.
  if (code === 0) fs.rmSync(tmp, { recursive: true, force: true });
  else console.error(`kept ${tmp}`);
});
setTimeout(() => fail('timed out'), 90000).unref();
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

async function skin(q) {
  const r = await request('GET', '/v1/skin?' + new URLSearchParams(q));
  check(r.status === 200, 'GET /v1/skin ' + r.status + ' ' +
    r.body.toString().slice(0, 200));
  return r;
}

function q16Size(v, normals) {
  return (24 + v * (normals ? 10 : 6) + 3) & ~3;
}

async function httpCase(mesh, clip, v, normals, decodeQ16) {
  const base = { mesh, clip, normals: normals ? '1' : '0', format: 'bin' };
  let worst = 0;
  for (const t of ['0', '0.3', '0.9']) {
    const f = await skin({ ...base, t });
    const q = await skin({ ...base, t, encoding: 'q16' });
    check(q.headers['x-animd-layout'] ===
      (normals ? 'positions+normals/q16' : 'positions/q16'), 'layout header');
    worst = Math.max(worst, compare('single t=' + t, f.body, q.body, v,
      normals, decodeQ16));
  }
  const range = { ...base, from: '0', to: '0.4', fps: '5' };
  const f = (await skin(range)).body, q = (await skin({ ...range,
    encoding: 'q16' })).body;
  const fw = 3 * v * (normals ? 2 : 1), qw = q16Size(v, normals) / 4;
  let fo = 0, qo = 0, n = 0;
  while (qo < q.length) {
    check(q.readUInt32LE(qo) === n && q.readUInt32LE(qo + 4) === qw,
      'range header of frame ' + n);
    check(f.readDoubleLE(fo + 8) === q.readDoubleLE(qo + 8), 'range t');
    worst = Math.max(worst, compare('range frame ' + n,
      f.subarray(fo + 16, fo + 16 + 4 * fw),
      q.subarray(qo + 16, qo + 16 + 4 * qw), v, normals, decodeQ16));
    fo += 16 + 4 * fw; qo += 16 + 4 * qw; n++;
  }
  check(n === 3 && fo === f.length, 'range frames ' + n);
  return worst;
}

async function wsCase(mesh, clip, v, normals, decodeQ16) {
  const ws = new WebSocket('ws://' + addr + '/v1/stream');
  await new Promise((res, rej) => { ws.on('open', res); ws.on('error', rej); });
  const frames = [];
  let ack = null;
  ws.on('message', (data, isBinary) => {
    if (isBinary) frames.push(Buffer.from(data));
    else {
      const j = JSON.parse(data);
      if (j.op === 'play') ack = j;
      else if (j.error) fail('ws error ' + data);
    }
  });
  ws.send(JSON.stringify({ op: 'play', id: 'n', mesh, clip, fps: 20,
    format: 'bin', encoding: 'q16', normals }));
  for (let i = 0; i < 100 && frames.length < 4; i++) await sleep(50);
  ws.close(1000);
  check(ack && ack.layout === (normals ? 'positions+normals/q16' :
    'positions/q16'), 'play answer ' + JSON.stringify(ack));
  check(frames.length >= 4, 'ws frames: ' + frames.length);
  let worst = 0;
  for (const m of frames.slice(0, 4)) {
    check(m.readUInt32LE(4) === (normals ? 5 : 4), 'ws layout');
    check(m.readUInt32LE(28) === v, 'ws vertices');
    const count = m.readUInt32LE(24);
    check(count === q16Size(v, normals) / 4 && m.length === 32 + 4 * count,
      'ws count');
    const t = m.readDoubleLE(16);
    const f = await skin({ mesh, clip, t: String(t), wrap: 'loop',
      normals: normals ? '1' : '0', format: 'bin' });
    worst = Math.max(worst, compare('ws t=' + t, f.body, m.subarray(32), v,
      normals, decodeQ16));
  }
  return worst;
}

async function main() {
  for (let i = 0; i < 200 && !addr; i++) {
    if (fs.existsSync(ready) && fs.statSync(ready).size > 0)
      addr = fs.readFileSync(ready, 'utf8').trim();
    else await sleep(50);
  }
  check(addr, 'animd did not start');
  const decodeQ16 = readmeDecoder();
  const cases = [['body', 'wave', 512]];
  const cesium = path.join(SHARED, 'assets', 'gltf', 'khronos',
    'CesiumMan.glb');
  if (fs.existsSync(cesium)) {
    const up = await request('POST', '/v1/assets', fs.readFileSync(cesium),
      { 'Content-Type': 'model/gltf-binary' });
    check(up.status === 200 || up.status === 201, 'upload ' + up.status);
    const j = JSON.parse(up.body);
    cases.push([j.meshes[0].id, j.clips[0].id, j.meshes[0].vertices]);
  } else {
    console.log('SKIPPED CesiumMan: the shared assets are not there (' +
      cesium + ')');
  }
  for (const [mesh, clip, v] of cases) {
    for (const normals of [true, false]) {
      const a = await httpCase(mesh, clip, v, normals, decodeQ16);
      const b = await wsCase(mesh, clip, v, normals, decodeQ16);
      console.log(mesh.slice(0, 12) + ' normals=' + normals +
        ': worst normal ' + Math.max(a, b).toFixed(5) + ' deg');
    }
  }
  console.log('ok');
  process.exit(0);
}

main().catch((e) => fail(e.stack || String(e)));
