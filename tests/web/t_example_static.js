// examples/static/index.html run as it is written (only the daemon's
// address in its import map replaced) from a page of another loopback
// origin in headless Chromium, with CesiumMan.glb beside it and three from
// npm served by the daemon's /three/: the page uploads the model, maps the
// daemon's skeleton onto three's scene and plays a clip through the
// three.js adapter, fat (matrices) and thin (q16 vertices). Each must map
// every joint and mesh, receive frames, report its stream state and draw
// the character (a share of the screenshot's pixels off the background).
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
    const img = decodePng(await tab.screenshot());
    let lit = 0;
    for (let i = 0; i < img.width * img.height; i++) {
      const r = img.rgba[4 * i], g = img.rgba[4 * i + 1], b = img.rgba[4 * i + 2];
      if (Math.abs(r - 0x10) + Math.abs(g - 0x14) + Math.abs(b - 0x18) > 60) lit++;
    }
    const share = lit / (img.width * img.height);
    console.log(`ok ${query}: ${got.state.frames} frames at ${got.state.fps.toFixed(1)} frames/s, ` +
      `${(100 * share).toFixed(1)}% of the pixels drawn`);
    check(share > 0.02 && share < 0.6, `${query}: ${(100 * share).toFixed(1)}% of the pixels drawn`);
    await tab.close();
  }
});
