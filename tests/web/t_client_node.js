// The JavaScript client under Node against the real daemon: every number it
// returns equals the daemon's own answer fetched without it (binary pose,
// skin, range, mesh block against the JSON describe), a stream's frames
// equal GET /v1/pose at their clip time, errors become AnimdError, and an
// upload round-trips.
import WebSocket from 'ws';

import { Animd } from '../../packages/animd-client/animd.js';
import { check, floatsOf, maxDiff, run, startDaemon } from './lib.js';

run(async () => {
  const d = await startDaemon();
  const animd = new Animd({ url: d.url, WebSocket });

  const list = await animd.assets();
  check(list.skeletons[0].name === 'demo-humanoid', 'assets: ' + JSON.stringify(list));

  for (const space of ['local', 'model', 'skin']) {
    const p = await animd.pose({ clip: 'wave', t: 0.7, space });
    const ref = await floatsOf(`${d.url}/v1/pose?clip=wave&t=0.7&space=${space}&format=bin`);
    check(maxDiff(p.data, ref) === 0, `pose ${space} differs`);
    check(p.joints === 17 && p.layout === (space === 'local' ? 'trs10' : 'mat4'), 'pose metadata');
  }
  const s = await animd.skin({ mesh: 'body', clip: 'wave', t: 0.7, normals: true });
  const sref = await floatsOf(`${d.url}/v1/skin?mesh=body&clip=wave&t=0.7&normals=1&format=bin`);
  check(maxDiff(s.data, sref) === 0 && s.vertices === 512, 'skin differs');

  let n = 0;
  for await (const f of animd.poseRange({ clip: 'idle', from: 0, to: 1, fps: 4, space: 'skin' })) {
    const ref = await floatsOf(`${d.url}/v1/pose?clip=idle&t=${f.t}&space=skin&format=bin`);
    check(maxDiff(f.data, ref) === 0, `range frame ${f.index} differs`);
    n++;
  }
  check(n === 5, `range frames: ${n}`);

  const mesh = await animd.mesh('body');
  const info = await animd.meshInfo('body');
  check(maxDiff(mesh.positions, Float32Array.from(info.positions)) === 0, 'mesh positions');
  check(maxDiff(mesh.weights, Float32Array.from(info.weights)) === 0, 'mesh weights');
  check(maxDiff(mesh.joints, info.joints) === 0, 'mesh joints');
  check(maxDiff(mesh.indices, info.indices) === 0, 'mesh indices');

  const e = await animd.pose({ clip: 'wave', t: 'soon' }).catch((x) => x);
  check(e.code === 'bad_parameter' && e.at === 't' && e.status === 400, 'error: ' + e);

  const up = await animd.upload('HIERARCHY\nROOT hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Yrotation Zrotation\n'
    + ' End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0\n0 0 90\n');
  check(up.skeletons.length === 1 && up.clips.length === 1, 'upload: ' + JSON.stringify(up));

  const conn = animd.connect();
  const stream = await conn.play({ skeleton: 'demo-humanoid', clip: 'wave', space: 'skin', fps: 30 });
  const frames = [];
  await new Promise((resolve) => {
    stream.onframe = (f) => {
      frames.push({ t: f.t, data: Float32Array.from(f.data) });
      if (frames.length === 4) resolve();
    };
  });
  stream.onframe = null;
  for (const f of frames) {
    const ref = await floatsOf(`${d.url}/v1/pose?clip=wave&t=${f.t}&space=skin&wrap=loop&format=bin`);
    check(maxDiff(f.data, ref) === 0, `stream frame at ${f.t} differs`);
  }
  await stream.pause();
  await stream.seek(1.25);
  const until = Date.now() + 5000;
  while (stream.lastT !== 1.25 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  check(stream.lastT === 1.25, 'seek frame: ' + stream.lastT);
  const stats = await conn.stats();
  check(stats.streams[0].paused === true, 'stats: ' + JSON.stringify(stats));
  const bad = await conn.play({ skeleton: 'demo-humanoid', clip: 'nope' }).catch((x) => x);
  check(bad.code === 'not_found' && bad.at === 'clip', 'stream error: ' + bad);
  await stream.stop();
  conn.close();
  console.log(`ok: ${frames.length} stream frames and ${n} range frames equal the daemon's answers`);
});
