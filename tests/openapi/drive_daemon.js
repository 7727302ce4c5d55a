// Drives the real daemon through every route of the OpenAPI document
// (uploads of every format, poses JSON, binary, SVG and ranges, skins,
// solve, compare, check, plot, test suites, retarget, deletes, the
// WebSocket's messages, errors) and validates each answer's status, content
// type, headers and JSON body against docs/openapi.yaml with Ajv; every
// operation of the document must have been exercised. The document the
// daemon serves at /v1/openapi.json must equal docs/openapi.yaml's JSON.
// With ../shared/assets (ANIMD_SHARED) it also uploads glTF, BVH and MD5
// files and fetches an embedded texture; without, it says so and goes on.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import WebSocket from 'ws';

import { check, run, startDaemon } from '../web/lib.js';
import { Contract, loadDocumentText } from './contract.js';

const faults = [];
let contract;
let base;

async function call(method, p, { query = {}, body, type, headers = {} } = {}) {
  const q = new URLSearchParams(query);
  const url = `${base}${p}${[...q.keys()].length ? '?' + q : ''}`;
  const h = { ...headers };
  let data = body;
  if (body !== undefined && !(body instanceof Buffer) && typeof body !== 'string') {
    data = JSON.stringify(body);
    h['Content-Type'] = h['Content-Type'] || 'application/json';
  }
  if (type) h['Content-Type'] = type;
  const r = await fetch(url, { method, headers: h, body: data });
  const buf = Buffer.from(await r.arrayBuffer());
  const res = { status: r.status, headers: r.headers, body: buf };
  const f = contract.validateAnswer({ method, path: p, query: q }, res);
  for (const x of f) faults.push(`${method} ${p}?${q}: ${x}`);
  res.json = () => JSON.parse(buf.toString('utf8'));
  return res;
}

/** A GET with headers fetch does not let a page set (Host, Upgrade), validated likewise. */
function rawGet(p, headers) {
  return new Promise((resolve, reject) => {
    const u = new URL(base + p);
    const r = http.request({ host: u.hostname, port: u.port, path: p, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const out = { status: res.statusCode, headers: new Headers(), body: Buffer.concat(chunks) };
        for (const [k, v] of Object.entries(res.headers)) out.headers.set(k, String(v));
        for (const f of contract.validateAnswer({ method: 'GET', path: p }, out)) faults.push(`GET ${p}: ${f}`);
        resolve(out);
      });
    });
    r.on('error', reject);
    r.end();
  });
}

function expect(res, status, what) {
  if (res.status !== status)
    faults.push(`${what}: status ${res.status}, expected ${status}: ${res.body.toString('utf8').slice(0, 300)}`);
  return res;
}

/** Sends WebSocket messages one after another, collecting every text answer. */
async function wsSession() {
  const ws = new WebSocket(base.replace('http', 'ws') + '/v1/stream');
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  contract.covered.add('GET /v1/stream');
  contract.counts.answers++;
  const texts = [];
  let binaries = 0;
  ws.on('message', (data, isBinary) => {
    if (isBinary) binaries++;
    else texts.push(JSON.parse(data.toString('utf8')));
  });
  const send = (m) => {
    const e = contract.check('WsClientMessage', m);
    if (e) faults.push(`WsClientMessage ${JSON.stringify(m)}: ${e}`);
    contract.counts.messages++;
    ws.send(JSON.stringify(m));
  };
  const until = async (pred, what) => {
    const end = Date.now() + 10000;
    while (!texts.some(pred)) {
      check(Date.now() < end, `WebSocket: no ${what} in 10 s: ${JSON.stringify(texts.slice(-3))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  send({ op: 'play', id: 'w', skeleton: 'demo-humanoid', clip: 'wave', fps: 30, joints: ['hips'] });
  await until((m) => m.op === 'play', 'play answer');
  await until((m) => m.id === 'w' && m.frame !== undefined && !m.op, 'frame');
  send({ op: 'pause', id: 'w' });
  send({ op: 'seek', id: 'w', t: 0.25 });
  send({ op: 'set', id: 'w', speed: -1, ik: [{ type: 'aim', joint: 'head', target: [0, 1.6, 2] }] });
  send({ op: 'resume', id: 'w' });
  send({ op: 'stats', id: 's' });
  send({ op: 'play', id: 'm', mesh: 'body', clip: 'idle', fps: 30, normals: true, format: 'bin' });
  send({ op: 'play', id: 'all', skeleton: 'demo-humanoid', mesh_all: true, clip: 'idle', fps: 30 });
  send({ op: 'play', id: 'e', skeleton: 'stick2', clip: 'bend', fps: 60 });
  send({ op: 'pose', id: 'p', skeleton: 'demo-humanoid', clip: 'wave', t: 0.5, space: 'local' });
  send({ op: 'pose', mesh: 'body', clip: 'wave', t: 0.5 });
  send({ op: 'pose', skeleton: 'demo-humanoid', t: 0.5, blend_space: { param: [0.3], clips: [{ clip: 'idle', at: [0] }, { clip: 'wave', at: [1] }] } });
  await until((m) => m.op === 'stats', 'stats answer');
  await until((m) => m.type === 'event', 'clip event');
  // Errors (sent raw: they are not valid client messages).
  for (const bad of ['{"op":"play","id":"x","clip":"wave","sped":1}', '{"op":"dance"}', 'nope',
    '{"op":"pause","id":"ghost"}', '{"op":"play","id":"w","skeleton":"demo-humanoid","clip":"wave"}']) ws.send(bad);
  send({ op: 'stop', id: 'w' });
  send({ op: 'stop', id: 'm' });
  send({ op: 'stop', id: 'all' });
  send({ op: 'stop', id: 'e' });
  await until((m) => m.op === 'stop' && m.id === 'e', 'stop answer');
  ws.close();
  const seen = new Set();
  for (const m of texts) {
    const e = contract.check('WsServerMessage', m);
    if (e) faults.push(`WsServerMessage ${JSON.stringify(m).slice(0, 200)}: ${e}`);
    contract.counts.messages++;
    seen.add(m.op || (m.error ? 'error:' + m.error.code : m.type || 'frame'));
  }
  for (const want of ['play', 'pause', 'seek', 'set', 'resume', 'stats', 'stop', 'frame',
    'event', 'error:unknown_field', 'error:unknown_op', 'error:bad_json', 'error:unknown_stream', 'error:stream_exists'])
    check(seen.has(want), `WebSocket: no ${want} among ${[...seen].join(', ')}`);
  check(binaries > 0, 'WebSocket: no binary frame');
  return texts.length;
}

/** A small native upload: a two-joint skeleton, a clip with events, a mesh with morph targets. */
function nativeUpload(name) {
  return {
    skeleton: { name, joints: [
      { name: 'root', parent: -1, translation: [0, 0, 0] },
      { name: 'tip', parent: 0, translation: [0, 1, 0] }] },
    clips: [{ name: 'bend', tracks: [{ joint: 'tip', path: 'rotation', times: [0, 1],
      values: [0, 0, 0, 1, 0, 0, 0.38268343, 0.92387953] }],
      events: [{ t: 0.5, name: 'mid' }],
      weights: [{ mesh: 'stick', times: [0, 1], values: [0, 1] }] }],
    meshes: [{ name: 'stick', positions: [0, 0, 0, 0, 1, 0, 0.1, 1, 0], indices: [0, 1, 2],
      joints: [0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], weights: [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
      targets: [{ positions: [0, 0, 0, 0, 0.1, 0, 0, 0.1, 0] }] }],
  };
}

run(async () => {
  const expectedText = loadDocumentText();
  contract = new Contract(JSON.parse(expectedText));
  const d = await startDaemon();
  base = d.url;

  // The served document is the source's.
  const served = expect(await call('GET', '/v1/openapi.json'), 200, 'openapi.json');
  check(served.body.toString('utf8') === expectedText,
    'GET /v1/openapi.json differs from docs/openapi.yaml converted (rebuild the daemon)');
  expect(await call('HEAD', '/v1/openapi.json'), 200, 'HEAD openapi.json');

  // Operations.
  expect(await call('GET', '/healthz'), 200, 'healthz');
  expect(await call('HEAD', '/healthz'), 200, 'HEAD healthz');
  expect(await call('GET', '/metrics'), 200, 'metrics');
  expect(await call('HEAD', '/metrics'), 200, 'HEAD metrics');
  expect(await call('GET', '/v1/info'), 200, 'info');
  expect(await call('HEAD', '/v1/info'), 200, 'HEAD info');

  // Assets.
  const list = expect(await call('GET', '/v1/assets'), 200, 'assets').json();
  expect(await call('HEAD', '/v1/assets'), 200, 'HEAD assets');
  const skel = list.skeletons[0].id;
  const wave = list.clips.find((c) => c.name === 'wave').id;
  const body = list.meshes[0].id;
  const up = expect(await call('POST', '/v1/assets', { body: nativeUpload('stick') }), 201, 'native upload').json();
  expect(await call('POST', '/v1/assets', { body: nativeUpload('stick') }), 200, 'same upload again');
  expect(await call('POST', '/v1/assets', { body: nativeUpload('stick'), query: { prefix: 'v2/' } }), 201, 'prefix');
  expect(await call('POST', '/v1/assets', { body: nativeUpload('stick'), query: { replace: '1' } }), 200, 'replace');
  expect(await call('POST', '/v1/assets', { body: nativeUpload('stick2') }), 201, 'a second rig');
  const other = nativeUpload('stick');
  other.clips[0].duration = 2;
  expect(await call('POST', '/v1/assets', { body: other }), 409, 'name_conflict');
  expect(await call('POST', '/v1/assets', { body: 'x', type: 'text/plain' }), 415, 'media type');
  expect(await call('POST', '/v1/assets', { body: { skeleton: { joints: [] }, colour: 1 } }), 400, 'unknown_field');
  expect(await call('POST', '/v1/assets', { body: nativeUpload('stick'), query: { nmae: 'x' } }), 400, 'unknown_parameter');

  const shared = process.env.ANIMD_SHARED || '../shared';
  const assets = path.join(shared, 'assets');
  let imageMesh = null;
  if (fs.existsSync(assets)) {
    const file = (p) => fs.readFileSync(path.join(assets, p));
    const cesium = expect(await call('POST', '/v1/assets', { body: file('gltf/khronos/CesiumMan.glb'), type: 'model/gltf-binary' }), 201, 'glb').json();
    imageMesh = cesium.meshes[0].id;
    expect(await call('POST', '/v1/assets', { body: file('gltf/khronos/SimpleSkin.gltf'), type: 'model/gltf+json' }), 201, 'gltf');
    expect(await call('POST', '/v1/assets', { body: file('bvh/cmu/01_01.bvh'), type: 'application/x-bvh', query: { name: 'cmu', clip: 'jump' } }), 201, 'bvh');
    const md5dir = path.join(assets, 'md5/bob');
    const md5mesh = fs.readdirSync(md5dir).find((f) => f.endsWith('.md5mesh'));
    const md5anim = fs.readdirSync(md5dir).find((f) => f.endsWith('.md5anim'));
    const bob = expect(await call('POST', '/v1/assets', { body: fs.readFileSync(path.join(md5dir, md5mesh)), type: 'application/x-md5mesh', query: { name: 'bob' } }), 201, 'md5mesh').json();
    expect(await call('POST', '/v1/assets', { body: fs.readFileSync(path.join(md5dir, md5anim)), type: 'application/x-md5anim', query: { skeleton: bob.skeletons[0].id } }), 201, 'md5anim');
  } else {
    console.log(`no ${assets}: glTF, BVH and MD5 uploads and the embedded image left out`);
  }

  for (const [kind, id] of [['skeletons', skel], ['clips', wave], ['meshes', body]]) {
    const r = expect(await call('GET', `/v1/${kind}/${id}`), 200, kind);
    expect(await call('GET', `/v1/${kind}/${id}`, { headers: { 'If-None-Match': r.headers.get('etag') } }), 304, kind + ' 304');
    expect(await call('HEAD', `/v1/${kind}/${id}`), 200, 'HEAD ' + kind);
  }
  expect(await call('GET', '/v1/skeletons/nobody'), 404, 'not_found');
  expect(await call('GET', `/v1/meshes/${body}`, { query: { format: 'bin' } }), 200, 'mesh block');
  expect(await call('GET', `/v1/meshes/${body}`, { headers: { Accept: 'application/octet-stream' } }), 200, 'mesh block by Accept');
  expect(await call('GET', `/v1/meshes/${body}`, { query: { format: 'svg' } }), 400, 'mesh svg');
  expect(await call('HEAD', `/v1/meshes/${body}`, { query: { format: 'bin' } }), 200, 'HEAD mesh block');
  const stickMesh = up.meshes[0].id;
  expect(await call('GET', `/v1/meshes/${stickMesh}`), 200, 'mesh with targets');
  for (const sub of ['clips', 'meshes']) {
    expect(await call('GET', `/v1/skeletons/demo-humanoid/${sub}`), 200, sub);
    expect(await call('HEAD', `/v1/skeletons/demo-humanoid/${sub}`), 200, 'HEAD ' + sub);
  }
  if (imageMesh) {
    const img = expect(await call('GET', `/v1/meshes/${imageMesh}/image`), 200, 'image');
    expect(await call('GET', `/v1/meshes/${imageMesh}/image`, { headers: { 'If-None-Match': img.headers.get('etag') } }), 304, 'image 304');
    expect(await call('HEAD', `/v1/meshes/${imageMesh}/image`), 200, 'HEAD image');
  } else {
    expect(await call('HEAD', `/v1/meshes/${body}/image`), 404, 'HEAD image');
  }
  expect(await call('GET', `/v1/meshes/${body}/image`), 404, 'no image');

  // Poses.
  const pq = { clip: 'wave', t: '0.5' };
  const pose = expect(await call('GET', '/v1/pose', { query: pq }), 200, 'pose');
  expect(await call('GET', '/v1/pose', { query: pq, headers: { 'If-None-Match': pose.headers.get('etag') } }), 304, 'pose 304');
  expect(await call('HEAD', '/v1/pose', { query: pq }), 200, 'HEAD pose');
  for (const space of ['local', 'skin'])
    expect(await call('GET', '/v1/pose', { query: { ...pq, space, joints: 'hips,hand_r' } }), 200, 'pose ' + space);
  expect(await call('GET', '/v1/pose', { query: { skeleton: 'demo-humanoid', t: '0' } }), 200, 'rest pose');
  expect(await call('GET', '/v1/pose', { query: { ...pq, format: 'bin' } }), 200, 'pose bin');
  expect(await call('GET', '/v1/pose', { query: { ...pq, format: 'svg', view: 'side' } }), 200, 'pose svg');
  expect(await call('GET', '/v1/pose', { query: { ...pq, root_motion: 'hips', wrap: 'loop' } }), 200, 'root motion');
  expect(await call('GET', '/v1/pose', { query: { clip: 'wave', from: '0', to: '1', fps: '4' } }), 200, 'range json');
  expect(await call('GET', '/v1/pose', { query: { clip: 'wave', from: '0', to: '1', fps: '4', format: 'bin', space: 'local' } }), 200, 'range bin');
  expect(await call('GET', '/v1/pose', { query: { clip: 'wave', from: '0', to: '1', fps: '4', format: 'svg', layout: 'overlay' } }), 200, 'range svg');
  expect(await call('GET', '/v1/pose', { query: { clip: up.clips[0].id, from: '0', to: '1', fps: '4' } }), 200, 'range with events');
  expect(await call('GET', '/v1/pose', { query: { clip: up.clips[0].id, t: '0.5', format: 'bin' } }), 200, 'morph weights bin');
  expect(await call('GET', '/v1/pose', { query: { clip: 'wave', t: 'soon' } }), 400, 'bad_parameter');
  expect(await call('GET', '/v1/pose', { query: { clip: 'wave', t: '1', spcae: 'local' } }), 400, 'unknown_parameter');
  expect(await call('GET', '/v1/pose', { query: { clip: 'nope', t: '1' } }), 404, 'pose not_found');
  expect(await call('GET', '/v1/pose', { query: { clip: 'bend', t: '1' } }), 409, 'ambiguous');
  const blend = { skeleton: 'demo-humanoid', layers: [{ clip: 'idle', t: 1, weight: 0.7 },
    { clip: 'wave', t: 0.4, weight: 0.3, mask: ['upper_arm_r', 'forearm_r', 'hand_r'] }] };
  expect(await call('POST', '/v1/pose', { body: blend }), 200, 'blend');
  expect(await call('POST', '/v1/pose', { body: { ...blend, format: 'bin', ik: [{ type: 'two_bone', start: 'upper_arm_l', mid: 'forearm_l', end: 'hand_l', target: [0.4, 1.2, 0.3] }] } }), 200, 'blend bin ik');
  expect(await call('POST', '/v1/pose', { body: { ...blend, format: 'svg' } }), 200, 'blend svg');
  expect(await call('POST', '/v1/pose', { body: { skeleton: 'demo-humanoid', t: 1.2, wrap: 'loop',
    blend_space: { param: [0.3], clips: [{ clip: 'idle', at: [0] }, { clip: 'wave', at: [1] }] },
    root_motion: { joint: 'hips' }, ik: [{ type: 'aim', joint: 'head', target: [1, 1.7, 1] }] } }), 200, 'blend space');
  expect(await call('POST', '/v1/pose', { body: { ...blend, spcae: 'local' } }), 400, 'body unknown_field');
  expect(await call('POST', '/v1/pose', { body: '{"skeleton":' }), 400, 'bad_json');

  // Skins.
  const sq = { mesh: 'body', clip: 'wave', t: '0.5' };
  const skin = expect(await call('GET', '/v1/skin', { query: { ...sq, normals: '1' } }), 200, 'skin');
  expect(await call('GET', '/v1/skin', { query: { ...sq, normals: '1' }, headers: { 'If-None-Match': skin.headers.get('etag') } }), 304, 'skin 304');
  expect(await call('HEAD', '/v1/skin', { query: sq }), 200, 'HEAD skin');
  expect(await call('GET', '/v1/skin', { query: { ...sq, format: 'bin', method: 'dqs' } }), 200, 'skin bin');
  expect(await call('GET', '/v1/skin', { query: { ...sq, format: 'bin', encoding: 'q16', normals: 'invt' } }), 200, 'skin q16');
  expect(await call('GET', '/v1/skin', { query: { mesh: 'body' } }), 200, 'rest skin');
  expect(await call('GET', '/v1/skin', { query: { skeleton: 'demo-humanoid', clip: 'wave', t: '0.5' } }), 200, 'skin meshes');
  expect(await call('GET', '/v1/skin', { query: { skeleton: 'demo-humanoid', mesh: 'body,body', clip: 'wave', t: '0.5', format: 'bin' } }), 200, 'skin meshes bin');
  expect(await call('GET', '/v1/skin', { query: { mesh: 'body', clip: 'wave', from: '0', to: '0.5', fps: '4' } }), 200, 'skin range');
  expect(await call('GET', '/v1/skin', { query: { mesh: 'body', clip: 'wave', from: '0', to: '0.5', fps: '4', format: 'bin' } }), 200, 'skin range bin');
  expect(await call('GET', '/v1/skin', { query: { mesh: stickMesh, weights: '{"stick":[0.5]}' } }), 200, 'skin morph');
  expect(await call('GET', '/v1/skin', { query: { clip: 'wave' } }), 400, 'skin missing_parameter');

  // Solve: the positions of two poses back to their rotations.
  const frames = [];
  for (const t of ['0', '0.5']) {
    const m = (await call('GET', '/v1/pose', { query: { clip: 'wave', t } })).json().matrices;
    const f = [];
    for (let j = 0; j < m.length; j += 16) f.push(m[j + 12], m[j + 13], m[j + 14]);
    frames.push(f);
  }
  expect(await call('POST', '/v1/solve', { body: { skeleton: 'demo-humanoid', frames } }), 200, 'solve');
  expect(await call('POST', '/v1/solve', { body: { skeleton: 'demo-humanoid', frames: [[1, 2]] } }), 400, 'solve value_count');

  // Verdicts.
  expect(await call('POST', '/v1/compare', { body: { a: { clip: 'idle' }, b: { clip: 'wave' }, to: 2, joints: ['hand_r', 'head', 'hips'] } }), 200, 'compare');
  expect(await call('POST', '/v1/compare', { body: { a: { skeleton: 'demo-humanoid', layers: [{ clip: 'wave' }] }, b: { clip: 'wave' }, tolerence: 1 } }), 400, 'compare unknown_field');
  expect(await call('GET', `/v1/clips/${wave}/check`, { query: { feet: 'shin_l,shin_r', loop: '1' } }), 200, 'check');
  expect(await call('HEAD', '/v1/clips/wave/check'), 200, 'HEAD check');
  expect(await call('GET', '/v1/clips/wave/check', { query: { up: 'w' } }), 400, 'check bad_parameter');
  expect(await call('GET', '/v1/clips/wave/plot', { query: { joints: 'upper_arm_r,forearm_r', channel: 'angle' } }), 200, 'plot');
  expect(await call('HEAD', '/v1/clips/wave/plot'), 200, 'HEAD plot');
  expect(await call('GET', '/v1/clips/wave/plot', { query: { joints: 'tail' } }), 400, 'plot unknown_joint');
  const suite = { name: 'demo', cases: [
    { name: 'hand at 0.5 s', pose: { skeleton: 'demo-humanoid', layers: [{ clip: 'wave', t: 0.5 }] },
      expect: [{ joint: 'hand_r', position: [-0.3762, 1.9633, -0.1412], tolerance: 0.001 }] },
    { name: 'wave loops cleanly', check: { clip: 'wave', loop: 1, pop: 45 } },
    { name: 'same', compare: { a: { clip: 'wave' }, b: { clip: 'wave' } } }] };
  for (const format of ['json', 'junit', 'tap', 'html'])
    expect(await call('POST', '/v1/test', { body: suite, query: { format } }), 422, 'test ' + format);
  expect(await call('POST', '/v1/test', { body: { name: 'ok', cases: [suite.cases[2]] } }), 200, 'test passes');
  expect(await call('POST', '/v1/test', { body: { name: 'x', cases: [{ name: 'a', check: { clip: 'nope' } }] } }), 404, 'test not_found');

  // Retarget, then deletes.
  const rt = expect(await call('POST', '/v1/retarget', { body: { clip: 'wave', to: 'demo-humanoid', map: 'auto', name: 'wave@demo', fps: 30 } }), 201, 'retarget').json();
  expect(await call('POST', '/v1/retarget', { body: { clip: 'wave', to: 'demo-humanoid', map: 'auto', name: 'wave@demo', fps: 30 } }), 200, 'retarget again');
  expect(await call('POST', '/v1/retarget', { body: { clip: 'wave', to: 'demo-humanoid', map: { hips: 'nope' } } }), 400, 'retarget unknown_joint');
  expect(await call('DELETE', `/v1/clips/${rt.clips[0].id}`), 200, 'delete clip');
  expect(await call('DELETE', `/v1/meshes/${stickMesh}`), 200, 'delete mesh');
  expect(await call('DELETE', `/v1/skeletons/${up.skeletons[0].id}`), 409, 'delete skeleton conflict');
  expect(await call('DELETE', `/v1/skeletons/${up.skeletons[0].id}`, { query: { cascade: '1' } }), 200, 'delete cascade');
  expect(await call('DELETE', '/v1/clips/nope'), 404, 'delete not_found');

  // The WebSocket, and its upgrade refused.
  const messages = await wsSession();
  expect(await call('GET', '/v1/stream'), 400, 'upgrade_required');
  expect(await rawGet('/v1/stream', { Connection: 'Upgrade', Upgrade: 'websocket',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' }), 426, 'unsupported_version');
  expect(await rawGet('/v1/info', { Host: 'evil.test' }), 421, 'misdirected_request');

  // Routing errors.
  expect(await call('GET', '/v1/nothing'), 404, 'no such endpoint');
  expect(await call('PUT', '/v1/pose'), 405, 'method_not_allowed');

  const missing = contract.operations().filter((o) => !contract.covered.has(o));
  if (missing.length) faults.push('operations never exercised: ' + missing.join(', '));
  for (const f of faults) console.error('FAULT: ' + f);
  const c = contract.counts;
  console.log(`openapi: ${contract.covered.size} of ${contract.operations().length} operations exercised; `
    + `${c.answers} answers, ${c.bodies} JSON bodies or lines, ${c.headers} headers, `
    + `${c.parameters} query values and `
    + `${c.messages} WebSocket messages (${messages} received) validated`);
  check(faults.length === 0, `${faults.length} answers depart from docs/openapi.yaml`);
});
