// Unit tests of packages/animd-client/animd.js under Node's test runner, with a fake fetch and
// a fake WebSocket (no daemon): content types of uploads, errors as
// AnimdError, binary answers as views, range frames split across chunks,
// stream frames routed by index with zero-copy views, control answers and
// errors, reconnect with back-off replaying streams, and the three.js
// skeleton mapping.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  Animd, AnimdError, decodeMesh, decodeMeshes, decodeQ16, decodeSkinMeshes, decodeRangeFrames, decodeStreamFrame,
  driveSkeleton, mapSkeleton, sniffBytes, sniffText,
} from '../../../packages/animd-client/animd.js';

/** A fetch that records requests and answers from a function. */
function fakeFetch(answer) {
  const calls = [];
  const fn = async (url, init) => {
    calls.push({ url, ...init });
    return answer(url, init);
  };
  fn.calls = calls;
  return fn;
}

function binaryResponse(floats, headers) {
  return new Response(new Float32Array(floats).buffer, { status: 200, headers });
}

test('upload picks the content type from the body', async () => {
  const f = fakeFetch(() => Response.json({ skeletons: [], clips: [], meshes: [] }, { status: 201 }));
  const a = new Animd({ url: 'http://d:1/', fetch: f });
  await a.upload('HIERARCHY\nROOT hips\n');
  await a.upload(new Uint8Array([0x67, 0x6c, 0x54, 0x46, 2, 0, 0, 0]).buffer);
  await a.upload(new File(['MD5Version 10\n'], 'walk.md5anim'), { skeleton: 'rig' });
  await a.upload({ skeleton: { name: 's', joints: [] } });
  await a.upload('{"asset":{"version":"2.0"},"nodes":[]}');
  await a.upload('whatever', { contentType: 'application/x-bvh', name: 'n' });
  const types = f.calls.map((c) => c.headers['Content-Type']);
  assert.deepEqual(types, ['application/x-bvh', 'model/gltf-binary', 'application/x-md5anim',
    'application/json', 'model/gltf+json', 'application/x-bvh']);
  assert.equal(f.calls[2].url, 'http://d:1/v1/assets?skeleton=rig');
  assert.equal(f.calls[5].url, 'http://d:1/v1/assets?name=n');
  assert.equal(f.calls[0].method, 'POST');
  await assert.rejects(a.upload('plain words'), { code: 'bad_argument' });
});

test('sniffing MD5 and JSON text', () => {
  assert.equal(sniffText('MD5Version 10\ncommandline ""\nnumJoints 2\nnumMeshes 1'), 'application/x-md5mesh');
  assert.equal(sniffText('  {"skeleton":{}, "asset":{}}'), 'application/json');
  assert.equal(sniffBytes(new TextEncoder().encode('HIERARCHY')), 'application/x-bvh');
});

test('errors carry code, message, at and status', async () => {
  const f = fakeFetch(() => Response.json(
    { error: { code: 'bad_parameter', message: "'t' must be a finite number", at: 't' } },
    { status: 400 }));
  const a = new Animd({ url: 'http://d:1', fetch: f });
  const e = await a.pose({ clip: 'wave', t: 'soon' }).catch((x) => x);
  assert.ok(e instanceof AnimdError && e instanceof Error);
  assert.deepEqual([e.code, e.message, e.at, e.status],
    ['bad_parameter', "'t' must be a finite number", 't', 400]);
  const down = new Animd({ url: 'http://d:1', fetch: async () => { throw new TypeError('refused'); } });
  await assert.rejects(down.assets(), { name: 'AnimdError', code: 'network', status: 0 });
  const html = new Animd({ url: 'http://d:1', fetch: async () => new Response('<p>no</p>', { status: 502, statusText: 'Bad Gateway' }) });
  await assert.rejects(html.info(), { code: 'http_502', status: 502 });
});

test('pose and skin: binary views with their metadata', async () => {
  const f = fakeFetch((url) => (url.includes('/v1/pose')
    ? binaryResponse([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], { 'X-Animd-Layout': 'trs10', 'X-Animd-Joints': '1', ETag: '"e"' })
    : binaryResponse([1, 2, 3, 4, 5, 6, 0, 0, 1, 0, 1, 0], { 'X-Animd-Layout': 'positions+normals', 'X-Animd-Vertices': '2' })));
  const a = new Animd({ url: 'http://d:1', fetch: f });
  const p = await a.pose({ skeleton: 's', clip: 'c', t: 0.25, space: 'local', joints: ['a', 'b'] });
  assert.equal(f.calls[0].url, 'http://d:1/v1/pose?skeleton=s&clip=c&t=0.25&space=local&joints=a%2Cb&format=bin');
  assert.deepEqual([p.layout, p.joints, p.etag, p.t], ['trs10', 1, '"e"', 0.25]);
  assert.deepEqual([...p.data], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const s = await a.skin({ mesh: 'm', clip: 'c', t: 1, normals: true });
  assert.ok(f.calls[1].url.includes('normals=1'));
  assert.equal(s.vertices, 2);
  assert.deepEqual([...s.positions], [1, 2, 3, 4, 5, 6]);
  assert.deepEqual([...s.normals], [0, 0, 1, 0, 1, 0]);
  assert.equal(s.positions.buffer, s.data.buffer); // views, not copies
});

/** Binary range frames: 16-byte header (u32 index, u32 count, f64 t), then floats. */
function rangeBytes(frames) {
  const parts = frames.map(({ index, t, data }) => {
    const b = new ArrayBuffer(16 + 4 * data.length);
    const dv = new DataView(b);
    dv.setUint32(0, index, true);
    dv.setUint32(4, data.length, true);
    dv.setFloat64(8, t, true);
    new Float32Array(b, 16).set(data);
    return new Uint8Array(b);
  });
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { all.set(p, o); o += p.length; }
  return all;
}

test('range frames survive any split into chunks', async () => {
  const frames = [0, 1, 2].map((i) => ({ index: i, t: i / 30, data: [i, i + 0.5, -i] }));
  const bytes = rangeBytes(frames);
  for (const size of [1, 3, 7, 16, 17, bytes.length]) {
    const chunks = [];
    for (let o = 0; o < bytes.length; o += size) chunks.push(bytes.slice(o, o + size));
    const got = [];
    for await (const f of decodeRangeFrames(chunks)) got.push(f);
    assert.equal(got.length, 3);
    got.forEach((f, i) => {
      assert.equal(f.index, i);
      assert.equal(f.t, i / 30);
      assert.deepEqual([...f.data], [i, i + 0.5, -i]);
    });
  }
  await assert.rejects((async () => {
    for await (const f of decodeRangeFrames([bytes.slice(0, 20)])) void f;
  })(), { code: 'truncated' });
});

test('range through fetch: frames as they arrive', async () => {
  const bytes = rangeBytes([{ index: 0, t: 0, data: [1] }, { index: 1, t: 0.5, data: [2] }]);
  const f = fakeFetch(() => new Response(new ReadableStream({
    start(c) { c.enqueue(bytes.slice(0, 10)); c.enqueue(bytes.slice(10)); c.close(); },
  }), { headers: { 'X-Animd-Layout': 'positions' } }));
  const a = new Animd({ url: 'http://d:1', fetch: f });
  const ts = [];
  for await (const fr of a.skinRange({ mesh: 'm', clip: 'c', from: 0, to: 0.5, fps: 2 })) {
    assert.equal(fr.layout, 'positions');
    ts.push(fr.t);
  }
  assert.deepEqual(ts, [0, 0.5]);
});

/** A WebSocket binary frame: the 32-byte header, then floats. */
function streamFrame(index, layout, frame, t, floats, items) {
  const b = new ArrayBuffer(32 + 4 * floats.length);
  const dv = new DataView(b);
  dv.setUint32(0, index, true);
  dv.setUint32(4, layout, true);
  dv.setUint32(8, frame % 2 ** 32, true);
  dv.setUint32(12, Math.floor(frame / 2 ** 32), true);
  dv.setFloat64(16, t, true);
  dv.setUint32(24, floats.length, true);
  dv.setUint32(28, items, true);
  new Float32Array(b, 32).set(floats);
  return b;
}

test('stream frames are views of the message', () => {
  const b = streamFrame(3, 3, 2 ** 33 + 5, 1.25, [1, 2, 3, 4, 5, 6], 1);
  const f = decodeStreamFrame(b);
  assert.deepEqual([f.index, f.layout, f.frame, f.t, f.count, f.items],
    [3, 'positions+normals', 2 ** 33 + 5, 1.25, 6, 1]);
  assert.equal(f.data.buffer, b);
  assert.equal(f.data.byteOffset, 32);
  assert.deepEqual([...f.positions], [1, 2, 3]);
  assert.deepEqual([...f.normals], [4, 5, 6]);
});

/** A mesh block as docs/api.md ("Mesh blocks") lays it out, written here by hand. */
function meshBlock() {
  const v = 3, k = 4, ni = 3;
  const b = new ArrayBuffer(256);
  const dv = new DataView(b);
  [...'AMSH'].forEach((c, i) => dv.setUint8(i, c.charCodeAt(0)));
  const u = (at, x) => dv.setUint32(at, x, true);
  u(4, 1); u(8, 96); u(12, 1 | 4); u(16, v); u(20, ni); u(24, k); u(28, 2);
  u(36, 96); u(40, 96 + 48); u(48, 192); u(52, 208); u(32, 208 + 48); u(56, 272);
  return b;
}

test('mesh blocks decode as views, one after the other', () => {
  const one = meshBlock();
  const two = new ArrayBuffer(2 * 272);
  new Uint8Array(two).set(new Uint8Array(one.slice(0, 256)), 0);
  new Uint8Array(two).set(new Uint8Array(one.slice(0, 256)), 272);
  new DataView(two).setFloat32(96, 7.5, true);
  const ms = decodeMeshes(two);
  assert.equal(ms.length, 2);
  const m = ms[0];
  assert.deepEqual([m.vertexCount, m.indexCount, m.influences, m.jointCount], [3, 3, 4, 2]);
  assert.equal(m.positions[0], 7.5);
  assert.equal(m.positions.length, 9);
  assert.equal(m.normals.length, 9);
  assert.equal(m.texcoords, null);
  assert.equal(m.joints.length, 12);
  assert.equal(m.indices.length, 3);
  assert.equal(ms[1].positions.byteOffset, 272 + 96);
  assert.throws(() => decodeMesh(new ArrayBuffer(96)), { code: 'bad_answer' });
});

test('a mesh block of layout version 2 carries its morph targets (docs/api.md layout)', () => {
  // V = 1, K = 4, T = 2 with normal deltas: positions at 96, normals at
  // 112, joints at 128, weights at 144, targets at 160: 2 x 12 B position
  // deltas, 2 x 12 B normal deltas, 2 default weights; 224 bytes.
  const b = new ArrayBuffer(224);
  const dv = new DataView(b);
  'AMSH'.split('').forEach((c, i) => dv.setUint8(i, c.charCodeAt(0)));
  const u32 = [[4, 2], [8, 96], [12, 1 | 8 | 16], [16, 1], [24, 4], [28, 1], [36, 96],
    [40, 112], [48, 128], [52, 144], [56, 224], [88, 2], [92, 160]];
  for (const [at, v] of u32) dv.setUint32(at, v, true);
  const deltas = [1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6, 0.5, 0.25];
  deltas.forEach((f, i) => dv.setFloat32(160 + 4 * i, f, true));
  const m = decodeMesh(b);
  assert.deepEqual(Array.from(m.morphTargets.positions[1]), [4, 5, 6]);
  assert.deepEqual(Array.from(m.morphTargets.normals[0]), [-1, -2, -3]);
  assert.deepEqual(Array.from(m.morphTargets.weights), [0.5, 0.25]);
  dv.setUint32(4, 3, true);
  assert.throws(() => decodeMesh(b), { code: 'bad_answer' });
});

test('a skin answer of several meshes decodes block by block (docs/api.md layout)', () => {
  // Two float32 blocks (positions+normals): mesh 0 with 1 vertex (6
  // floats), mesh 1 with 2 vertices (12 floats), each after a 16-byte
  // header u32 position, u32 words, f64 t; then a stream frame carrying
  // the same blocks after its 32-byte header.
  const blocks = [[0, 6], [1, 12]];
  const size = blocks.reduce((n, [, w]) => n + 16 + 4 * w, 0);
  const b = new ArrayBuffer(32 + size);
  const dv = new DataView(b);
  let off = 32;
  for (const [k, w] of blocks) {
    dv.setUint32(off, k, true);
    dv.setUint32(off + 4, w, true);
    dv.setFloat64(off + 8, 0.25, true);
    for (let i = 0; i < w; i++) dv.setFloat32(off + 16 + 4 * i, 10 * k + i, true);
    off += 16 + 4 * w;
  }
  const ms = decodeSkinMeshes(b.slice(32), 'positions+normals');
  assert.equal(ms.length, 2);
  assert.deepEqual(ms.map((m) => [m.index, m.vertices, m.t]), [[0, 1, 0.25], [1, 2, 0.25]]);
  assert.deepEqual(Array.from(ms[1].positions), [10, 11, 12, 13, 14, 15]);
  assert.deepEqual(Array.from(ms[1].normals), [16, 17, 18, 19, 20, 21]);
  dv.setUint32(4, 3, true); // layout positions+normals
  dv.setUint32(24, size / 4, true);
  dv.setUint32(28, 3, true);
  const f = decodeStreamFrame(b, true);
  assert.equal(f.meshes.length, 2);
  assert.deepEqual(Array.from(f.meshes[0].positions), [0, 1, 2]);
  assert.throws(() => decodeSkinMeshes(b.slice(32, 60), 'positions'), { code: 'truncated' });
});

/** A fake WebSocket: records sent messages; the test answers through it. */
class FakeSocket {
  static all = [];
  static refuse = 0; // the next this many sockets fail to open
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.readyState = 0;
    FakeSocket.all.push(this);
    const refused = FakeSocket.refuse > 0;
    if (refused) FakeSocket.refuse--;
    setTimeout(() => {
      this.readyState = refused ? 3 : 1;
      if (refused) this.onclose({ code: 1006 });
      else this.onopen();
    }, 0);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close(code = 1000) { this.readyState = 3; setTimeout(() => this.onclose({ code }), 0); }
  reply(obj) { this.onmessage({ data: typeof obj === 'string' ? obj : JSON.stringify(obj) }); }
  drop() { this.readyState = 3; this.onclose({ code: 1006 }); }
}

const tick = () => new Promise((r) => setTimeout(r, 0));
async function until(cond, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
}

test('streams: play, frames by index, control answers and errors', async () => {
  FakeSocket.all = [];
  const a = new Animd({ url: 'http://127.0.0.1:8080', fetch: async () => null, WebSocket: FakeSocket });
  const conn = a.connect({ reconnect: false });
  const playing = conn.play({ id: 'w', skeleton: 's', clip: 'c', space: 'skin', fps: 30 });
  await until(() => FakeSocket.all[0] && FakeSocket.all[0].sent.length === 1);
  const ws = FakeSocket.all[0];
  assert.equal(ws.url, 'ws://127.0.0.1:8080/v1/stream');
  assert.deepEqual(ws.sent[0], { op: 'play', id: 'w', format: 'bin', skeleton: 's', clip: 'c', fps: 30, space: 'skin' });
  ws.reply({ op: 'play', id: 'w', index: 4, layout: 'mat4', joints: 1, duration: 2, fps: 30, speed: 1 });
  const s = await playing;
  const got = [];
  s.onframe = (f) => got.push(f);
  ws.onmessage({ data: streamFrame(4, 1, 0, 0, new Array(16).fill(1), 1) });
  ws.onmessage({ data: streamFrame(9, 1, 0, 0, new Array(16).fill(2), 1) }); // another index: ignored
  ws.onmessage({ data: streamFrame(4, 1, 3, 0.1, new Array(16).fill(3), 1) });
  assert.deepEqual(got.map((f) => f.data[0]), [1, 3]);
  assert.deepEqual(s.counters, { frames: 2, bytes: 2 * (32 + 64), missed: 2 });
  const pausing = s.pause();
  await tick();
  ws.reply({ op: 'pause', id: 'w', frame: 4, t: 0.13, paused: true });
  assert.equal((await pausing).t, 0.13);
  assert.ok(s.paused);
  const bad = conn.play({ id: 'x', skeleton: 's', clip: 'nope' });
  await tick();
  ws.reply({ error: { code: 'not_found', message: 'no such clip for this skeleton', at: 'clip' }, id: 'x' });
  await assert.rejects(bad, { code: 'not_found', at: 'clip', status: 0 });
  const stats = conn.stats();
  await tick();
  ws.reply({ op: 'stats', sent: 2, dropped: 0, streams: [] });
  assert.equal((await stats).sent, 2);
  conn.close();
});

test('clip events go to onevent, not counted as frames', async () => {
  FakeSocket.all = [];
  const a = new Animd({ url: 'http://127.0.0.1:8080', fetch: async () => null, WebSocket: FakeSocket });
  const conn = a.connect({ reconnect: false });
  const playing = conn.play({ id: 'w', skeleton: 's', clip: 'c', fps: 30 });
  await until(() => FakeSocket.all[0] && FakeSocket.all[0].sent.length === 1);
  const ws = FakeSocket.all[0];
  ws.reply({ op: 'play', id: 'w', index: 0, layout: 'mat4', joints: 1, duration: 1, fps: 30, speed: 1 });
  const s = await playing;
  const events = [];
  const frames = [];
  s.onevent = (e) => events.push(e);
  s.onframe = (f) => frames.push(f.frame);
  ws.reply({ type: 'event', id: 'w', name: 'step', t: 0.25, frame: 0 });
  ws.onmessage({ data: streamFrame(0, 1, 0, 0.25, new Array(16).fill(1), 1) });
  assert.deepEqual(events, [{ type: 'event', id: 'w', name: 'step', t: 0.25, frame: 0 }]);
  assert.deepEqual(frames, [0]);
  assert.equal(s.counters.frames, 1);
  conn.close();
});

test('reconnect with back-off replays streams from their last clip time', async () => {
  FakeSocket.all = [];
  const statuses = [];
  const a = new Animd({ url: 'http://h:1', fetch: async () => null, WebSocket: FakeSocket });
  const conn = a.connect({ minDelay: 5, maxDelay: 20, onstatus: (st) => statuses.push(st) });
  const playing = conn.play({ id: 'w', skeleton: 's', clip: 'c' });
  await until(() => FakeSocket.all[0] && FakeSocket.all[0].sent.length === 1);
  FakeSocket.all[0].reply({ op: 'play', id: 'w', index: 0, layout: 'mat4', joints: 1, duration: 2, fps: 60, speed: 1 });
  const s = await playing;
  FakeSocket.all[0].onmessage({ data: streamFrame(0, 1, 7, 1.5, new Array(16).fill(0), 1) });
  s.paused = true;
  FakeSocket.refuse = 1; // the first retry fails too: the next waits longer
  FakeSocket.all[0].drop();
  await until(() => FakeSocket.all.length === 3 && FakeSocket.all[2].sent.length === 1);
  const ws = FakeSocket.all[2];
  assert.deepEqual(ws.sent[0], { op: 'play', id: 'w', format: 'bin', skeleton: 's', clip: 'c', t0: 1.5 });
  ws.reply({ op: 'play', id: 'w', index: 0, layout: 'mat4', joints: 1, duration: 2, fps: 60, speed: 1 });
  await until(() => ws.sent.length === 2);
  assert.deepEqual(ws.sent[1], { op: 'pause', id: 'w' });
  assert.deepEqual(statuses.filter((x) => x !== 'open').slice(0, 2), ['reconnecting', 'reconnecting']);
  assert.equal(statuses.filter((x) => x === 'open').length, 2);
  conn.close();
});

test('three.js skeletons: joints mapped to bones by name', () => {
  const bones = ['mixamorig:Hips', 'Spine', 'extra', 'Head'].map((name) => ({ name }));
  const skeleton = {
    bones,
    boneMatrices: new Float32Array(16 * bones.length),
    updates: 0,
    update() { this.updates++; this.boneMatrices.fill(9); },
  };
  const m = mapSkeleton(['Spine', 'hips', 'head', 'tail'], skeleton);
  assert.deepEqual([...m.boneOfJoint], [1, 0, 3, -1]);
  assert.deepEqual([...m.jointOfBone], [1, 0, -1, 2]);
  assert.deepEqual(m.unmappedJoints, ['tail']);
  assert.deepEqual(m.unmappedBones, ['extra']);
  const drive = driveSkeleton(skeleton, [{ name: 'Spine' }, { name: 'hips' }, { name: 'head' }, { name: 'tail' }]);
  const mats = new Float32Array(16 * 4).map((_, i) => Math.floor(i / 16) + 1);
  drive.set(mats);
  skeleton.update();
  assert.equal(skeleton.updates, 1); // three.js's own update still runs
  const first = (b) => skeleton.boneMatrices[16 * b];
  assert.deepEqual([first(0), first(1), first(2), first(3)], [2, 1, 9, 3]);
  drive.release();
  skeleton.update();
  assert.equal(first(0), 9);
});

// A q16 payload written here from the layout alone (bounding box, u16
// positions, i16 octahedral normals), then read by the client's decoder:
// positions within (max - min) / 131070 per axis, normals within 0.01 degree.
test('q16 frames decode within the stated error', () => {
  const pos = [[0, 0, 0], [1, -2, 0.5], [0.25, 1.5, -1], [1, 1.5, 0.5]];
  const nrm = [[0, 0, 1], [0, 0, -1], [0.6, 0.8, 0], [-0.48, 0.6, -0.64]];
  const V = pos.length;
  const min = [0, 1, 2].map((a) => Math.min(...pos.map((p) => p[a])));
  const max = [0, 1, 2].map((a) => Math.max(...pos.map((p) => p[a])));
  const bytes = 24 + 6 * V + 4 * V;
  const buf = new ArrayBuffer(32 + bytes + ((4 - (bytes % 4)) % 4));
  const dv = new DataView(buf);
  dv.setUint32(4, 5, true); // positions+normals/q16
  dv.setUint32(24, (buf.byteLength - 32) / 4, true);
  dv.setUint32(28, V, true);
  for (let a = 0; a < 3; a++) {
    dv.setFloat32(32 + 4 * a, min[a], true);
    dv.setFloat32(44 + 4 * a, max[a], true);
  }
  pos.forEach((p, v) => p.forEach((x, a) => {
    const q = max[a] === min[a] ? 0 : Math.round(((x - min[a]) / (max[a] - min[a])) * 65535);
    dv.setUint16(56 + 2 * (3 * v + a), q, true);
  }));
  nrm.forEach((n, v) => {
    const s = Math.abs(n[0]) + Math.abs(n[1]) + Math.abs(n[2]);
    let x = n[0] / s, y = n[1] / s;
    if (n[2] < 0) {
      const fx = (1 - Math.abs(y)) * (x >= 0 ? 1 : -1);
      y = (1 - Math.abs(x)) * (y >= 0 ? 1 : -1);
      x = fx;
    }
    const c = (u) => Math.round(Math.max(-1, Math.min(1, u)) * 32767);
    dv.setInt16(56 + 6 * V + 4 * v, c(x), true);
    dv.setInt16(56 + 6 * V + 4 * v + 2, c(y), true);
  });
  const f = decodeStreamFrame(buf);
  assert.equal(f.layout, 'positions+normals/q16');
  for (let v = 0; v < V; v++) {
    for (let a = 0; a < 3; a++) {
      const bound = (max[a] - min[a]) / 131070 + 1e-6;
      assert.ok(Math.abs(f.positions[3 * v + a] - pos[v][a]) <= bound);
    }
    // The angle by atan2(|a x b|, a . b): acos loses it near 0.
    const a = nrm[v], b = Array.from(f.normals.subarray(3 * v, 3 * v + 3));
    const cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    assert.ok(Math.atan2(Math.hypot(...cross), dot) * 180 / Math.PI < 0.01);
  }
  const q = decodeQ16(buf, 32, V, false);
  assert.equal(q.normals, null);
  assert.equal(q.positions.length, 3 * V);
});
