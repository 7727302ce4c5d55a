// A Node script against the animd daemon, with the animd-client package
// and the ws WebSocket: uploads an asset (a file given on the command line;
// without one it uses the skeleton the daemon already has, the demo under
// `make run`), fetches a pose, skins the mesh, plays a short stream and
// prints what it got.
//
//   node main.js [--url http://127.0.0.1:8080] [--seconds 1] [--json] [asset.glb|.gltf|.bvh|.json]
import fs from 'node:fs';
import path from 'node:path';

import { Animd, AnimdError, version } from 'animd-client';
import WebSocket from 'ws';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return value;
};
const url = option('--url', 'http://127.0.0.1:8080');
const seconds = Number(option('--seconds', '1'));
const json = args.includes('--json');
const file = args.find((a) => !a.startsWith('--'));

const animd = new Animd({ url, WebSocket });
const out = { client: version, daemon: (await animd.info()).version };

// 1. The asset: uploaded from a file, or the first skeleton with a clip.
let skeleton, clip, mesh;
if (file) {
  const up = await animd.upload(new Uint8Array(fs.readFileSync(file)), { name: path.parse(file).name });
  skeleton = up.skeletons[0];
  clip = up.clips.find((c) => c.skeleton === skeleton.id);
  mesh = up.meshes.find((m) => m.skeleton === skeleton.id);
  out.uploaded = { skeletons: up.skeletons.length, clips: up.clips.length, meshes: up.meshes.length };
} else {
  const list = await animd.assets();
  clip = list.clips[0];
  skeleton = list.skeletons.find((s) => clip && s.id === clip.skeleton);
  mesh = list.meshes.find((m) => skeleton && m.skeleton === skeleton.id);
}
if (!skeleton || !clip) throw new Error('no skeleton with a clip: give an asset file');
const rig = await animd.skeleton(skeleton.id);
out.asset = { skeleton: skeleton.name, joints: rig.joints.length, clip: clip.name, duration: clip.duration,
  mesh: mesh ? mesh.name : null };

// 2. One pose: model-space matrices, 16 floats per joint (column-major,
// the translation in floats 12..14).
const t = Math.min(0.5, clip.duration / 2);
const pose = await animd.pose({ skeleton: skeleton.id, clip: clip.id, t, space: 'model' });
const root = rig.joints.findIndex((j) => j.parent < 0);
out.pose = { t, joints: pose.joints, layout: pose.layout, root: rig.joints[root].name,
  rootPosition: Array.from(pose.data.subarray(16 * root + 12, 16 * root + 15)) };

// 3. The mesh skinned by the daemon at that time: positions and normals.
if (mesh) {
  const skin = await animd.skin({ mesh: mesh.id, clip: clip.id, t, normals: true });
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < skin.positions.length; i++) {
    min[i % 3] = Math.min(min[i % 3], skin.positions[i]);
    max[i % 3] = Math.max(max[i % 3], skin.positions[i]);
  }
  out.skin = { vertices: skin.vertices, layout: skin.layout, min, max };
}

// 4. A short stream of skinning matrices at 30 frames a second.
const conn = animd.connect({ reconnect: false });
const start = Date.now();
const first = [];
let done;
const finished = new Promise((resolve) => { done = resolve; });
const stream = await conn.play({
  skeleton: skeleton.id, clip: clip.id, space: 'skin', fps: 30,
  onframe: (f) => { // f.data: a Float32Array view of the message, 16 floats per joint
    if (first.length < 3) first.push({ frame: f.frame, t: f.t, floats: f.data.length });
    if (Date.now() - start >= seconds * 1000) done();
  },
});
await finished;
const stop = await stream.stop();
const elapsed = (Date.now() - start) / 1000;
conn.close();
out.stream = { fps: 30, frames: stream.counters.frames, bytes: stream.counters.bytes,
  missed: stream.counters.missed, framesPerSecond: Number((stream.counters.frames / elapsed).toFixed(1)),
  daemon: { frames: stop.frames, skipped: stop.skipped, dropped: stop.dropped }, first };

// 5. A misspelt field is refused by the client, before anything is sent.
try {
  await animd.pose({ clip: clip.id, t, spcae: 'skin' });
} catch (e) {
  if (!(e instanceof AnimdError)) throw e;
  out.typo = { code: e.code, at: e.at, message: e.message };
}

if (json) {
  console.log(JSON.stringify(out));
} else {
  console.log(`animd ${out.daemon}, animd-client ${out.client}`);
  console.log(`skeleton ${out.asset.skeleton}: ${out.asset.joints} joints; clip ${out.asset.clip}: ${out.asset.duration} s`);
  console.log(`pose at t=${t}: ${out.pose.root} at ${out.pose.rootPosition.map((x) => x.toFixed(4)).join(', ')}`);
  if (out.skin) console.log(`mesh ${out.asset.mesh}: ${out.skin.vertices} vertices skinned, box ${JSON.stringify(out.skin)}`);
  console.log(`stream: ${out.stream.frames} frames, ${out.stream.bytes} bytes in ${elapsed.toFixed(2)} s ` +
    `(${out.stream.framesPerSecond} fps; missed ${out.stream.missed})`);
  console.log(`typo: ${out.typo.message}`);
}
