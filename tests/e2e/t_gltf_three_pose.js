// glTF poses against three.js: joint world matrices (matrixWorld of the
// skin's joint nodes, Z-up root and armature included) of CesiumMan and of
// Fox's three clips at several times must equal the model-space matrices
// of `animd eval FILE --clip NAME --t T --space model --format json`.
'use strict';
const r = require('./gltf_three.js');

const cases = [
  ['gltf/khronos/CesiumMan.glb', 'animation_0', 0, [0, 0.25, 1.0, 1.9]],
  ['gltf/khronos/RiggedFigure.glb', 'animation_0', 0, [0.3, 1.1]],
  ['gltf/khronos/Fox.glb', 'Survey', 0, [0.5, 2.2]],
  ['gltf/khronos/Fox.glb', 'Walk', 1, [0.1, 0.4]],
  ['gltf/khronos/Fox.glb', 'Run', 2, [0.3, 1.0]],
  ['gltf/extra/girl.glb', 'RunTrack', 1, [0.35]],
  ['gltf/khronos/RiggedSimple.glb', 'animation_0', 0, [0.5, 1.3]],
  ['gltf/extra/RiggedSimple_blender_reexport.glb', 'Anim_0_Armature', 0, [1.3, 4.0]],
  ['gltf/extra/robot_quaternius.glb', 'Robot_Wave', 12, [0.7]],
];

(async () => {
  let checks = 0;
  for (const [rel, clip, index, times] of cases) {
    for (const t of times) {
      const { THREE, gltf } = await r.loadGltf(rel);
      const { bones } = await r.skinBones(gltf, 0);
      r.poseAt(THREE, gltf, index, t);
      const want = [];
      for (const b of bones) want.push(...b.matrixWorld.elements);
      const got = r.animdEval(rel, clip, t, 'model');
      if (got.matrices.length < want.length)
        throw new Error(`${rel}: ${got.matrices.length / 16} joints, three.js has ${bones.length}`);
      const worst = r.compare(`${rel} ${clip} t=${t}`, got.matrices.slice(0, want.length), want, 2e-4);
      console.log(`ok ${rel} ${clip} t=${t}: ${bones.length} joints, worst rel. error ${worst.toExponential(2)}`);
      checks++;
    }
  }
  console.log(`${checks} poses match three.js`);
})().catch((e) => { console.error(e.message); process.exit(1); });
