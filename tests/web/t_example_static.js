// examples/static/index.html run as it is written (only the daemon's
// address in its import map replaced) from a page of another loopback
// origin in headless Chromium, with CesiumMan.glb beside it and three from
// npm served by the daemon's /three/: the page uploads the model, maps the
// daemon's skeleton onto three's scene and plays a clip through the
// three.js adapter, fat (matrices) and thin (q16 vertices). Each must map
// every joint and mesh, receive frames, report its stream state and draw
// the character: the screenshot's bright pixels fill a share of the screen
// rectangle of the drawn meshes' skinned bounding boxes, and none lie
// outside it.
import fs from 'node:fs';
import path from 'node:path';

import { check, decodePng, launchBrowser, run, servePage, startDaemon } from './lib.js';

const shared = process.env.ANIMD_SHARED || path.resolve('..', 'shared');
const model = path.join(shared, 'assets', 'gltf', 'khronos', 'CesiumMan.glb');
const three = path.resolve('tests/e2e/node_modules/three');

if (!fs.existsSync(model)) {
  console.log(`skipped: needs the shared test assets (${model}; set ANIMD_SHARED)`);
  process.exit(77);
}
if (!fs.existsSync(path.join(three, 'build', 'three.module.js'))) {
  console.log(`skipped: needs npm three in ${three} (make deps)`);
  process.exit(77);
}

run(async () => {
  const d = await startDaemon(['--three-dir', three]);
  const page = await servePage();
  page.html = fs.readFileSync('examples/static/index.html', 'utf8').replaceAll('http://127.0.0.1:8080', d.url);
  check(page.html.includes(d.url + '/client/three.js'), 'the import map names the adapter');
  const browser = await launchBrowser();
  for (const query of ['?mode=fat', '?mode=thin&encoding=q16']) {
    const tab = await browser.newPage({ viewport: { width: 640, height: 480 } });
    const errors = [];
    tab.on('pageerror', (e) => errors.push(e.message));
    await tab.route('**/CesiumMan.glb', (route) => route.fulfill({
      status: 200, contentType: 'model/gltf-binary', body: fs.readFileSync(model) }));
    await tab.goto(page.origin + '/' + query);
    await tab.waitForFunction(() => window.example && (window.example.error ||
      (window.example.ready && window.example.state.frames >= 10)), null, { timeout: 60000 });
    const got = await tab.evaluate(() => {
      const { rig, state, error } = window.example;
      return error ? { error } : {
        state: { ...state },
        unmapped: [rig.mapping.unmappedJoints, rig.mapping.unmappedBones, rig.mapping.unmappedMeshes,
          rig.mapping.unmappedSkinnedMeshes].map((l) => l.length),
        thinShown: [...rig.thin.values()].filter((m) => m.visible).length,
      };
    });
    check(!got.error, `${query}: ${got.error}`);
    check(errors.length === 0, `${query}: page errors: ${errors.join('; ')}`);
    check(got.unmapped.every((n) => n === 0), `${query}: unmapped ${got.unmapped}`);
    check(got.state.frames >= 10 && got.state.fps > 0 && got.state.bytes > 0, `${query}: state ${JSON.stringify(got.state)}`);
    check(got.thinShown === (query.includes('thin') ? 1 : 0), `${query}: ${got.thinShown} thin meshes shown`);
    // The screen rectangle of what is drawn (the visible meshes' bounding
    // boxes, skinned, through the camera), then the screenshot.
    const rect = await tab.evaluate(async () => {
      const THREE = await import('three');
      const { rig, camera } = window.example;
      const box = new THREE.Box3(), b = new THREE.Box3(), p = new THREE.Vector3();
      rig.scene.updateMatrixWorld(true);
      rig.scene.traverseVisible((o) => {
        if (!o.isMesh) return;
        if (o.isSkinnedMesh) o.computeBoundingBox(); else o.geometry.computeBoundingBox();
        box.union(b.copy(o.isSkinnedMesh ? o.boundingBox : o.geometry.boundingBox).applyMatrix4(o.matrixWorld));
      });
      const r = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
      for (let i = 0; i < 8; i++) {
        p.set(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z).project(camera);
        const x = ((p.x + 1) / 2) * innerWidth, y = ((1 - p.y) / 2) * innerHeight;
        r.left = Math.min(r.left, x); r.right = Math.max(r.right, x);
        r.top = Math.min(r.top, y); r.bottom = Math.max(r.bottom, y);
      }
      return r;
    });
    const img = decodePng(await tab.screenshot());
    // Bright pixels (brighter than the grid's lines) below the status text:
    // the character's, inside its rectangle (a 10-pixel margin: the model turns).
    let inside = 0, outside = 0;
    for (let y = 40; y < img.height; y++) {
      for (let x = 0; x < img.width; x++) {
        const i = 4 * (y * img.width + x);
        if (img.rgba[i] + img.rgba[i + 1] + img.rgba[i + 2] <= 300) continue;
        if (x >= rect.left - 10 && x <= rect.right + 10 && y >= rect.top - 10 && y <= rect.bottom + 10) inside++;
        else outside++;
      }
    }
    const area = (rect.right - rect.left) * (rect.bottom - rect.top);
    console.log(`ok ${query}: ${got.state.frames} frames at ${got.state.fps.toFixed(1)} frames/s; ` +
      `${inside} bright pixels in the model's ${Math.round(area)}-pixel rectangle, ${outside} outside`);
    check(area > 0.02 * img.width * img.height && area < img.width * img.height, `${query}: rectangle ${JSON.stringify(rect)}`);
    check(inside > 0.15 * area && outside < 0.01 * inside, `${query}: ${inside} bright pixels in, ${outside} out`);
    await tab.close();
  }
});
