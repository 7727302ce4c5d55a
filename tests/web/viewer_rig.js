// What the viewer's three.js adapter draws, read in the page (for the
// tests/web/t_browser_viewer* scripts): the GltfRig the viewer keeps in
// window.animdViewer.rig, its mode and stream counts, each joint's Bone in
// world space, three's own skinning of each SkinnedMesh (getVertexPosition,
// then the mesh's world matrix) and the thin client's Mesh positions.
import { check } from './lib.js';

/** The rig's readout: {mode, frames, frame, t, unmapped, meshIds, joints:
 * [16 floats | null], skinned: [[xyz...]], thin: [[xyz...]]}. */
export async function viewerRig(page) {
  const rig = await page.evaluate(() => {
    const r = window.animdViewer.rig;
    if (!r) return null;
    r.scene.updateMatrixWorld(true);
    const flat = (n, at) => {
      const out = new Array(3 * n);
      for (let i = 0; i < n; i++) {
        const v = at(i);
        out[3 * i] = v.x;
        out[3 * i + 1] = v.y;
        out[3 * i + 2] = v.z;
      }
      return out;
    };
    const skinned = r.mode === 'fat' ? r.skinnedMeshes.map((m) => {
      const v = m.position.clone();
      return flat(m.geometry.attributes.position.count, (i) => m.localToWorld(m.getVertexPosition(i, v)));
    }) : [];
    const thin = r.mode === 'thin' ? r.skinnedMeshes.map((m) => {
      const t = r.thin.get(m);
      const p = t.geometry.attributes.position;
      const v = m.position.clone();
      return flat(p.count, (i) => t.localToWorld(v.fromBufferAttribute(p, i)));
    }) : [];
    return {
      mode: r.mode, frames: r.state.frames, frame: r.state.frame, t: r.state.t,
      unmapped: r.mapping.unmappedJoints, meshIds: r.meshes.map((e) => e.id),
      joints: r.mapping.nodes.map((n) => (n ? n.matrixWorld.toArray() : null)),
      skinned, thin,
    };
  });
  check(rig, 'the viewer has no rig (window.animdViewer.rig)');
  return rig;
}

/** Largest distance between matching points of two flat xyz arrays. */
export function maxDistance(a, b) {
  check(a.length === b.length, `lengths differ: ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i += 3) m = Math.max(m, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return m;
}

/** The diagonal of the points' box (the model's size). */
export function diagonal(points) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], points[i]);
    hi[i % 3] = Math.max(hi[i % 3], points[i]);
  }
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

/** The q16 step of skinned positions (docs/api.md "Compact skinned
 * frames"): half of each axis' range over 65535, as one distance. */
export function q16Step(points) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], points[i]);
    hi[i % 3] = Math.max(hi[i % 3], points[i]);
  }
  return Math.hypot(...[0, 1, 2].map((a) => (hi[a] - lo[a]) / 65535 / 2));
}
