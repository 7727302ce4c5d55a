// Normals computed at import against three.js: glTF files without NORMAL
// (SimpleSkin.gltf, indexed; Fox.glb, not indexed) are uploaded to a
// running animd; the upload warns, GET /v1/meshes/{id}?format=bin carries
// normals, and they equal what three.js's BufferGeometry
// .computeVertexNormals() gives for the same positions and triangles
// (area-weighted sums of face cross products per vertex, normalized; a
// non-indexed list gets each triangle's face normal). normals=1 on
// GET /v1/skin works for them. Also checks the mesh's texture coordinates
// against the file's TEXCOORD_0 read by three's GLTFLoader.
'use strict';
const fs = require('fs');
const r = require('./gltf_three.js');

const cases = [
  ['gltf/khronos/SimpleSkin.gltf', 'model/gltf+json'],
  ['gltf/khronos/Fox.glb', 'model/gltf-binary'],
];

// The sections of a mesh block (docs/api.md, "Mesh blocks"), copied out.
function decodeBlock(ab) {
  const dv = new DataView(ab);
  const u32 = (at) => dv.getUint32(at, true);
  const v = u32(16), n = u32(20), flags = u32(12);
  const f32 = (at, count) => (at ? new Float32Array(ab.slice(at, at + 4 * count)) : null);
  return {
    positions: f32(u32(36), 3 * v),
    normals: flags & 1 ? f32(u32(40), 3 * v) : null,
    texcoords: flags & 2 ? f32(u32(44), 2 * v) : null,
    indices: flags & 4 ? new Uint32Array(ab.slice(u32(32), u32(32) + 4 * n)) : null,
  };
}

(async () => {
  const THREE = await import('three');
  const srv = await r.startAnimd();
  try {
    for (const [rel, type] of cases) {
      const body = fs.readFileSync(r.assetPath(rel));
      const up = await fetch(srv.url + '/v1/assets', {
        method: 'POST', headers: { 'Content-Type': type }, body });
      const upj = await up.json();
      if (up.status !== 201 && up.status !== 200)
        throw new Error(`${rel}: upload answered ${up.status} ${JSON.stringify(upj)}`);
      if (!(upj.warnings || []).some((w) => w.includes('area-weighted')))
        throw new Error(`${rel}: no warning about computed normals: ${JSON.stringify(upj.warnings)}`);
      const id = upj.meshes[0].id;
      const res = await fetch(`${srv.url}/v1/meshes/${id}?format=bin`);
      if (res.status !== 200) throw new Error(`${rel}: mesh answered ${res.status}`);
      const m = decodeBlock(await res.arrayBuffer());
      if (!m.normals) throw new Error(`${rel}: the mesh has no normals`);
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(m.positions, 3));
      if (m.indices) g.setIndex(new THREE.BufferAttribute(m.indices, 1));
      g.computeVertexNormals();
      const want = g.getAttribute('normal').array;
      let worst = 0;
      for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(want[i] - m.normals[i]));
      if (!(worst <= 1e-5)) throw new Error(`${rel}: normals differ from three.js by ${worst}`);
      const skin = await fetch(`${srv.url}/v1/skin?mesh=${id}&clip=${upj.clips[0].id}&t=0.5&normals=1`);
      const sj = await skin.json();
      if (skin.status !== 200 || !sj.normals)
        throw new Error(`${rel}: skin normals=1 answered ${skin.status} ${JSON.stringify(sj).slice(0, 200)}`);
      // TEXCOORD_0 as three's loader reads it from the same file (Fox only:
      // SimpleSkin has none).
      if (rel.endsWith('.glb')) {
        const { gltf } = await r.loadGltf(rel);
        let uv = null;
        gltf.scene.traverse((o) => { if (o.isSkinnedMesh && !uv) uv = o.geometry.getAttribute('uv'); });
        if (!uv || !m.texcoords) throw new Error(`${rel}: texture coordinates missing`);
        let du = 0;
        for (let i = 0; i < uv.array.length; i++) du = Math.max(du, Math.abs(uv.array[i] - m.texcoords[i]));
        if (du !== 0) throw new Error(`${rel}: texture coordinates differ by ${du}`);
      } else if (m.texcoords) {
        throw new Error(`${rel}: texture coordinates from nowhere`);
      }
      console.log(`ok ${rel}: ${m.positions.length / 3} vertices, ` +
        `${m.indices ? m.indices.length / 3 : m.positions.length / 9} triangles, ` +
        `normals within ${worst.toExponential(2)} of three.js`);
    }
  } finally {
    await srv.stop();
  }
})().catch((e) => { console.error(e.message); process.exit(1); });
