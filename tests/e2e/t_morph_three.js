// Morph targets against three.js: glTF files made here with GLTFExporter
// (morph targets with and without NORMAL deltas, skinned to two bones or
// bound to a node, weights animated LINEAR, STEP or CUBICSPLINE) are
// uploaded to a running animd; at 20 times each, GET /v1/skin must give the
// vertices three.js gives (GLTFLoader, AnimationMixer, morphTargetInfluences
// then skinning: Mesh.getVertexPosition times matrixWorld) within 1e-5 of
// the bounding box, GET /v1/pose the same weights within 1e-5, q16 within
// its documented bound (binary pose answers end with the weights), a
// range the same vertices as single frames, and
// "weights" overrides (POST /v1/pose, GET /v1/skin) those of three.js with
// morphTargetInfluences set by hand.
'use strict';
const { startAnimd } = require('./animd_node.js');
const m = require('./morph_three.js');

const cases = [
  { skinned: true, normals: true, interp: 'LINEAR' },
  { skinned: true, normals: false, interp: 'STEP' },
  { skinned: true, normals: true, interp: 'CUBICSPLINE' },
  { skinned: false, normals: true, interp: 'LINEAR' },
  { skinned: false, normals: false, interp: 'STEP' },
  { skinned: false, normals: false, interp: 'CUBICSPLINE' },
];
// 20 times within the clip (three.js loops by default, animd clamps): on
// keys, just around them, and between.
const TIMES = [0, 0.01, 0.05, 0.2, 0.37, 0.375, 0.38, 0.55, 0.7, 0.8, 0.95, 0.99,
               1.0, 1.1, 1.2, 1.3, 1.35, 1.4, 1.45, 1.49];

// Worst |got - want| / scale; throws beyond tol.
function worst(label, got, want, scale, tol) {
  if (got.length !== want.length)
    throw new Error(`${label}: ${got.length} numbers, three.js has ${want.length}`);
  let w = 0, at = 0;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs(got[i] - want[i]) / scale;
    if (!(e <= w)) { w = e; at = i; }
  }
  if (!(w <= tol))
    throw new Error(`${label}: element ${at} is ${got[at]}, three.js says ${want[at]} (error ${w} > ${tol})`);
  return w;
}

async function json(res, label) {
  const j = await res.json();
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`${label}: ${res.status} ${JSON.stringify(j)}`);
  return j;
}

// q16 payload positions (docs/api.md "Compact skinned frames").
function decodeQ16(buf, V) {
  const view = new DataView(buf);
  const lo = [0, 1, 2].map((a) => view.getFloat32(4 * a, true));
  const hi = [0, 1, 2].map((a) => view.getFloat32(12 + 4 * a, true));
  const p = [];
  for (let k = 0; k < 3 * V; k++)
    p.push(lo[k % 3] + view.getUint16(24 + 2 * k, true) / 65535 * (hi[k % 3] - lo[k % 3]));
  return { p, step: [0, 1, 2].map((a) => (hi[a] - lo[a]) / 131070) };
}

(async () => {
  const srv = await startAnimd();
  try {
    for (const c of cases) {
      const name = `${c.skinned ? 'skinned' : 'unskinned'} ${c.normals ? 'normals' : 'no normals'} ${c.interp}`;
      const text = await m.makeGltf(c);
      const up = await json(await fetch(srv.url + '/v1/assets', {
        method: 'POST', headers: { 'Content-Type': 'model/gltf+json' }, body: text }), name);
      const mesh = up.meshes[0].id, clip = up.clips[0].id;
      let wp = 0, ww = 0, wq = 0;
      for (const t of TIMES) {
        const ref = await m.reference(text, t);
        const skin = await json(await fetch(`${srv.url}/v1/skin?mesh=${mesh}&clip=${clip}&t=${t}`), name);
        wp = Math.max(wp, worst(`${name} t=${t} positions`, skin.positions, ref.positions, ref.box, 1e-5));
        const pose = await json(await fetch(`${srv.url}/v1/pose?clip=${clip}&t=${t}`), name);
        const mw = (pose.morph_weights || []).find((e) => e.mesh === up.meshes[0].name);
        if (!mw) throw new Error(`${name}: the pose answer has no morph_weights for ${up.meshes[0].name}`);
        ww = Math.max(ww, worst(`${name} t=${t} weights`, mw.values, ref.weights, 1, 1e-5));
        // Binary: the weights trail the pose's floats, counted by the header.
        const bin = await fetch(`${srv.url}/v1/pose?clip=${clip}&t=${t}&format=bin`);
        if (bin.headers.get('x-animd-morph-weights') !== '2')
          throw new Error(`${name}: X-Animd-Morph-Weights is ${bin.headers.get('x-animd-morph-weights')}`);
        const bf = new Float32Array(await bin.arrayBuffer());
        worst(`${name} t=${t} binary weights`, Array.from(bf.slice(bf.length - 2)), mw.values.map(Math.fround), 1, 0);
        const q = await fetch(`${srv.url}/v1/skin?mesh=${mesh}&clip=${clip}&t=${t}&format=bin&encoding=q16`);
        if (q.status !== 200) throw new Error(`${name}: q16 answered ${q.status}`);
        const d = decodeQ16(await q.arrayBuffer(), ref.positions.length / 3);
        for (let k = 0; k < d.p.length; k++) {
          const e = Math.abs(d.p[k] - ref.positions[k]);
          const bound = d.step[k % 3] + 1e-5 * ref.box;
          if (!(e <= bound)) throw new Error(`${name} t=${t} q16 element ${k}: error ${e} > ${bound}`);
          wq = Math.max(wq, e / ref.box);
        }
      }
      // "weights" overrides: POST /v1/pose lists them, GET /v1/skin morphs
      // with them.
      const meshName = up.meshes[0].name, over = [1, -0.5];
      const posted = await json(await fetch(srv.url + '/v1/pose', { method: 'POST',
        body: JSON.stringify({ skeleton: up.skeletons[0].id, layers: [{ clip, t: 0.7 }],
                               weights: { [meshName]: over } }) }), name);
      worst(`${name} POST weights`, posted.morph_weights.find((e) => e.mesh === meshName).values, over, 1, 0);
      const ref = await m.reference(text, 0.7, over);
      const q = encodeURIComponent(JSON.stringify({ [meshName]: over }));
      const skinOver = await json(await fetch(`${srv.url}/v1/skin?mesh=${mesh}&clip=${clip}&t=0.7&weights=${q}`), name);
      worst(`${name} skin with weights`, skinOver.positions, ref.positions, ref.box, 1e-5);
      // A range gives the single frames' vertices.
      const range = await fetch(`${srv.url}/v1/skin?mesh=${mesh}&clip=${clip}&from=0&to=1.5&fps=4`);
      const lines = (await range.text()).trim().split('\n').map((l) => JSON.parse(l));
      for (const f of lines) {
        const one = await json(await fetch(`${srv.url}/v1/skin?mesh=${mesh}&clip=${clip}&t=${f.t}`), name);
        worst(`${name} range t=${f.t}`, f.positions, one.positions, 1, 0);
      }
      console.log(`ok ${name}: ${TIMES.length} times, worst position error ${wp.toExponential(2)} of the box, ` +
                  `weights ${ww.toExponential(2)}, q16 ${wq.toExponential(2)}; range of ${lines.length} frames`);
    }
  } finally {
    await srv.stop();
  }
})().catch((e) => { console.error(e.message); process.exit(1); });
