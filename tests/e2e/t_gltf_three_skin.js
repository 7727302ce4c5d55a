// glTF skinning against three.js: RiggedSimple.glb and CesiumMan.glb are
// uploaded to a running animd, and GET /v1/skin at several clip times must
// return the vertices three.js skins from the same file (sum of weight *
// bone.matrixWorld * boneInverse * position, computed from three's objects).
'use strict';
const fs = require('fs');
const r = require('./gltf_three.js');

const cases = [
  ['gltf/khronos/RiggedSimple.glb', [0, 0.5, 1.3, 2.0]],
  ['gltf/khronos/CesiumMan.glb', [0.25, 1.0]],
];

(async () => {
  const srv = await r.startAnimd();
  try {
    for (const [rel, times] of cases) {
      const body = fs.readFileSync(r.assetPath(rel));
      const up = await fetch(srv.url + '/v1/assets', {
        method: 'POST', headers: { 'Content-Type': 'model/gltf-binary' }, body });
      const upj = await up.json();
      if (up.status !== 201 && up.status !== 200)
        throw new Error(`${rel}: upload answered ${up.status} ${JSON.stringify(upj)}`);
      const mesh = upj.meshes[0].id, clip = upj.clips[0].id;
      for (const t of times) {
        const { THREE, gltf } = await r.loadGltf(rel);
        r.poseAt(THREE, gltf, 0, t);
        const want = r.threeSkinned(THREE, gltf);
        const res = await fetch(`${srv.url}/v1/skin?mesh=${mesh}&clip=${clip}&t=${t}`);
        const j = await res.json();
        if (res.status !== 200) throw new Error(`${rel}: /v1/skin answered ${res.status} ${JSON.stringify(j)}`);
        const worst = r.compare(`${rel} t=${t}`, j.positions, want, 2e-4);
        console.log(`ok ${rel} t=${t}: ${want.length / 3} vertices, worst rel. error ${worst.toExponential(2)}`);
      }
    }
  } finally {
    await srv.stop();
  }
})().catch((e) => { console.error(e.message); process.exit(1); });
