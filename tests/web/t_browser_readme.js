// docs/web.md's "Use it from a web page" example, run as it is written (only
// the daemon's address replaced) from a page of another loopback origin in
// headless Chromium: it loads three.js and the client from the daemon,
// receives skinning matrices and draws the skinned mesh.
import fs from 'node:fs';

import { check, decodePng, launchBrowser, run, servePage, startDaemon } from './lib.js';

run(async () => {
  const doc = fs.readFileSync('docs/web.md', 'utf8');
  const section = doc.slice(doc.indexOf('## Use it from a web page'));
  const m = /```html\n([\s\S]*?)```/.exec(section);
  check(m, 'no html example in the docs/web.md section');
  const d = await startDaemon();
  const page = await servePage();
  page.html = m[1].replaceAll('http://127.0.0.1:8080', d.url);
  const browser = await launchBrowser();
  const tab = await browser.newPage({ viewport: { width: 640, height: 480 } });
  const errors = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  await tab.goto(page.origin + '/');
  await tab.waitForFunction(() => window.stream && window.stream.counters.frames >= 10, null, { timeout: 30000 });
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
  const img = decodePng(await tab.screenshot());
  let lit = 0;
  for (let i = 0; i < img.width * img.height; i++) {
    if (img.rgba[4 * i] + img.rgba[4 * i + 1] + img.rgba[4 * i + 2] > 60) lit++;
  }
  const frames = await tab.evaluate(() => window.stream.counters.frames);
  console.log(`ok: ${frames} frames received, ${lit} of ${img.width * img.height} pixels drawn`);
  check(lit > 0.01 * img.width * img.height && lit < 0.5 * img.width * img.height, `drawn pixels: ${lit}`);
});
