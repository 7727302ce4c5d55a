// Several meshes in one skin answer (GET /v1/skin?skeleton=S): a second
// mesh is uploaded on the demo skeleton (the demo body moved by +1 in x),
// and every multi-mesh answer (JSON, float32, q16; one frame and ranges;
// every mesh or a list) must be, block for block, the single-mesh answer
// of that mesh fetched on its own. The client's decodeSkinMeshes and
// skin({ skeleton }) are checked against the same single answers, a
// WebSocket stream of both meshes frame by frame, and the viewer showing
// every mesh from one stream (mesh=all) in Chromium: each mesh's skinned
// vertices land on the drawn silhouette.
import WebSocket from 'ws';

import { Animd, decodeSkinMeshes } from '../../packages/animd-client/animd.js';
import {
  VIEW, check, floatsOf, launchBrowser, openViewer, overlap, run, startDaemon,
} from './lib.js';

async function bytes(url) {
  const res = await fetch(url);
  check(res.status === 200, `${url}: ${res.status} ${await res.clone().text()}`);
  return { buf: Buffer.from(await res.arrayBuffer()), res };
}

function header(index, words, t) {
  const h = Buffer.alloc(16);
  h.writeUInt32LE(index, 0);
  h.writeUInt32LE(words, 4);
  h.writeDoubleLE(t, 8);
  return h;
}

run(async () => {
  const d = await startDaemon();
  // The second mesh: the body's describe answer, renamed and moved.
  const body = await (await fetch(`${d.url}/v1/meshes/body`)).json();
  const arm = { ...body, name: 'moved' };
  delete arm.id;
  delete arm.vertices;
  arm.positions = body.positions.map((v, i) => (i % 3 === 0 ? v + 1 : v));
  const up = await fetch(`${d.url}/v1/assets`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ meshes: [arm] }) });
  check(up.status === 201, `upload: ${up.status} ${await up.text()}`);
  const list = await (await fetch(`${d.url}/v1/skeletons/demo-humanoid/meshes`)).json();
  const all = (list.meshes || list).map((m) => m.id);
  check(all.length === 2, 'two meshes: ' + JSON.stringify(list));
  const q = 'clip=wave&t=0.7';
  const orders = [[null, all], ['moved,body', null]];
  orders[1][1] = [all.find((id) => id !== body.id), body.id];
  let blocks = 0;
  for (const [meshParam, ids] of orders) {
    const mq = meshParam ? `&mesh=${meshParam}` : '';
    for (const n of ['0', '1']) {
      // JSON: {"skeleton","meshes":[single answers]}.
      const j = await (await fetch(`${d.url}/v1/skin?skeleton=demo-humanoid${mq}&${q}&normals=${n}`)).json();
      check(j.meshes.length === ids.length, 'JSON mesh count');
      for (let k = 0; k < ids.length; k++) {
        const one = await (await fetch(`${d.url}/v1/skin?mesh=${ids[k]}&${q}&normals=${n}`)).json();
        check(JSON.stringify(j.meshes[k]) === JSON.stringify(one), `JSON block ${k} differs`);
        blocks++;
      }
      for (const enc of ['f32', 'q16']) {
        const { buf, res } = await bytes(`${d.url}/v1/skin?skeleton=demo-humanoid${mq}&${q}&normals=${n}&format=bin&encoding=${enc}`);
        check(res.headers.get('X-Animd-Meshes') === String(ids.length), 'X-Animd-Meshes');
        const parts = [];
        const singles = [];
        for (let k = 0; k < ids.length; k++) {
          const one = await bytes(`${d.url}/v1/skin?mesh=${ids[k]}&${q}&normals=${n}&format=bin&encoding=${enc}`);
          check(one.res.headers.get('X-Animd-Layout') === res.headers.get('X-Animd-Layout'), 'layout');
          parts.push(header(k, one.buf.length / 4, buf.readDoubleLE(8)), one.buf);
          singles.push(one.buf);
          blocks++;
        }
        check(Buffer.concat(parts).equals(buf), `binary ${enc} normals=${n} differs from the single answers`);
        check(Math.abs(buf.readDoubleLE(8) - 0.7) < 1e-6, 'block time');
        // The client's decoder, against the single answers.
        const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
        const layout = res.headers.get('X-Animd-Layout');
        const dec = decodeSkinMeshes(ab, layout);
        check(dec.length === ids.length && dec.every((b, k) => b.index === k), 'decoded blocks');
        if (enc === 'f32')
          for (let k = 0; k < ids.length; k++)
            check(Buffer.from(dec[k].data.buffer, dec[k].data.byteOffset, dec[k].data.byteLength).equals(singles[k]),
              `decoded block ${k}`);
        check(dec.every((b) => b.vertices === 512 && (n === '1') === (b.normals !== null)), 'decoded vertices');
      }
    }
    // Ranges: each frame's single-mesh frames one after another.
    for (const fmt of ['bin', 'json']) {
      const r = `from=0&to=0.5&fps=4&format=${fmt}`;
      const { buf } = await bytes(`${d.url}/v1/skin?skeleton=demo-humanoid${mq}&clip=wave&${r}`);
      const singles = [];
      for (const id of ids) singles.push((await bytes(`${d.url}/v1/skin?mesh=${id}&clip=wave&${r}`)).buf);
      const want = [];
      if (fmt === 'bin') {
        const frame = singles.map((s) => s.length / 3);
        for (let i = 0; i < 3; i++) singles.forEach((s, k) => want.push(s.subarray(i * frame[k], (i + 1) * frame[k])));
      } else {
        const lines = singles.map((s) => s.toString().trimEnd().split('\n'));
        for (let i = 0; i < 3; i++) lines.forEach((l) => want.push(Buffer.from(l[i] + '\n')));
      }
      check(Buffer.concat(want).equals(buf), `range ${fmt} differs from the single ranges`);
      blocks += 3 * ids.length;
    }
  }
  // The client.
  const animd = new Animd({ url: d.url });
  const s = await animd.skin({ skeleton: 'demo-humanoid', mesh: ['moved', 'body'], clip: 'wave', t: 0.7, normals: true });
  const one = await animd.skin({ mesh: 'body', clip: 'wave', t: 0.7, normals: true });
  check(s.meshes.length === 2 && s.meshes[1].data.every((v, i) => v === one.data[i]), 'client multi-mesh skin');
  // A WebSocket stream of both meshes: each binary frame holds both blocks,
  // each equal to GET /v1/skin of that mesh at the frame's clip time; a
  // JSON pose of every mesh (mesh_all) holds the single JSON answers.
  const ws = new WebSocket(d.url.replace('http', 'ws') + '/v1/stream');
  const inbox = [];
  let wake = null;
  ws.on('message', (data, isBinary) => { inbox.push({ data, isBinary }); if (wake) wake(); });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const next = async (binary) => {
    const end = Date.now() + 10000;
    for (;;) {
      const i = inbox.findIndex((m) => m.isBinary === binary);
      if (i >= 0) return inbox.splice(i, 1)[0].data;
      check(Date.now() < end, 'no WebSocket message in 10 s');
      await new Promise((r) => { wake = r; setTimeout(r, 200); });
    }
  };
  ws.send(JSON.stringify({ op: 'play', id: 'both', skeleton: 'demo-humanoid', clip: 'wave',
    mesh: ['moved', 'body'], format: 'bin', normals: true, fps: 20 }));
  const ack = JSON.parse((await next(false)).toString());
  check(ack.meshes && ack.meshes.length === 2 && ack.vertices === 1024, 'play ack: ' + JSON.stringify(ack));
  let wsBlocks = 0;
  for (let f = 0; f < 3; f++) {
    const fr = await next(true);
    const ab = fr.buffer.slice(fr.byteOffset, fr.byteOffset + fr.length);
    const dv = new DataView(ab);
    const t = dv.getFloat64(16, true);
    check(dv.getUint32(24, true) * 4 === fr.length - 32 && dv.getUint32(28, true) === 1024, 'frame header');
    const dec = decodeSkinMeshes(ab, 'positions+normals', 32);
    check(dec.length === 2, 'two blocks per frame');
    for (let k = 0; k < 2; k++) {
      const one = await bytes(`${d.url}/v1/skin?mesh=${ack.meshes[k].id}&clip=wave&t=${t}&normals=1&format=bin`);
      check(Buffer.from(dec[k].data.buffer, dec[k].data.byteOffset, dec[k].data.byteLength).equals(one.buf),
        `stream frame ${f} block ${k} differs from GET /v1/skin`);
      wsBlocks++;
    }
  }
  ws.send(JSON.stringify({ op: 'stop', id: 'both' }));
  ws.send(JSON.stringify({ op: 'pose', id: 'p', skeleton: 'demo-humanoid', clip: 'wave', t: 0.5, mesh_all: true }));
  let pose = null;
  for (let i = 0; i < 5 && !(pose && pose.meshes); i++) pose = JSON.parse((await next(false)).toString());
  check(pose.meshes && pose.meshes.length === 2, 'pose mesh_all: ' + JSON.stringify(pose).slice(0, 200));
  for (let k = 0; k < 2; k++) {
    const one = await (await fetch(`${d.url}/v1/skin?mesh=${all[k]}&clip=wave&t=0.5`)).json();
    check(JSON.stringify(pose.meshes[k].positions) === JSON.stringify(one.positions), `pose block ${k}`);
  }
  ws.close();
  console.log(`ok: ${wsBlocks} stream blocks equal GET /v1/skin`);
  // The viewer, every mesh of the skeleton from one stream.
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: VIEW });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  for (const mode of ['thin', 'fat']) {
    const { state, img } = await openViewer(page,
      `${d.url}/viewer?skeleton=demo-humanoid&clip=wave&mesh=all&mode=${mode}&t=0.5`);
    check(Array.isArray(state.mesh) && state.mesh.length === 2 && state.mode === mode, 'viewer state: ' + JSON.stringify(state.mesh));
    for (const id of state.mesh) {
      const skin = await floatsOf(`${d.url}/v1/skin?mesh=${id}&clip=wave&t=${state.t}&format=bin`);
      const cover = overlap(img, state, skin);
      console.log(`viewer ${mode} mesh=all ${id.slice(0, 8)}: overlap near ${cover.near}, exact ${cover.exact}`);
      check(cover.near >= 0.99, `viewer ${mode}: mesh ${id} only ${cover.near} of its vertices on the picture`);
    }
  }
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
  // Errors: an unknown mesh in the list, a skeleton without meshes.
  const bad = await fetch(`${d.url}/v1/skin?skeleton=demo-humanoid&mesh=body,nope&${q}`);
  check(bad.status === 404 && (await bad.json()).error.at === 'mesh', 'unknown mesh in the list');
  console.log(`ok: ${blocks} multi-mesh blocks equal their single-mesh answers`);
});
