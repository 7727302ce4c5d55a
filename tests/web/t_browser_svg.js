// Pictures in a browser: headless Chromium opens a pose's SVG
// (GET /v1/pose?format=svg) and a range's grid SVG straight from the
// daemon; each renders as an image of the size the SVG gives with some
// pixels in the skeleton's colour on its white background (non-blank),
// and the grid draws in every cell. The viewer's SVG link names the pose
// it shows.
import { check, decodePng, launchBrowser, run, startDaemon } from './lib.js';

const STROKE = [0x1f, 0x77, 0xb4]; // VERDICT_SVG_COLOR

/** Pixels of img within rect whose colour is far from white, and those
 * close to the stroke colour (lines are antialiased). */
function inked(img, { left, top, width, height }) {
  let ink = 0, stroke = 0;
  for (let y = top; y < top + height; y++) {
    for (let x = left; x < left + width; x++) {
      const i = 4 * (y * img.width + x);
      const [r, g, b] = [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]];
      if (765 - r - g - b > 60) ink++;
      if (Math.abs(r - STROKE[0]) + Math.abs(g - STROKE[1]) + Math.abs(b - STROKE[2]) < 60) stroke++;
    }
  }
  return { ink, stroke };
}

/** Opens url as a page and screenshots the <svg> element: {img, width, height}. */
async function shot(page, url) {
  const res = await page.goto(url);
  check(res.status() === 200, `${url}: ${res.status()}`);
  check(res.headers()['content-type'] === 'image/svg+xml', `${url}: ${res.headers()['content-type']}`);
  const box = await page.evaluate(() => {
    const r = document.documentElement.getBoundingClientRect();
    return { width: Math.round(r.width), height: Math.round(r.height), tag: document.documentElement.tagName };
  });
  check(box.tag === 'svg', `${url}: the document is a <${box.tag}>`);
  const img = decodePng(await page.screenshot({ clip: { x: 0, y: 0, width: box.width, height: box.height } }));
  return { img, ...box };
}

run(async () => {
  const d = await startDaemon();
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));

  const one = await shot(page, `${d.url}/v1/pose?skeleton=demo-humanoid&clip=wave&t=0.5&format=svg&joints=head`);
  check(one.width === 480 && one.height === 480, `pose picture ${one.width}x${one.height}`);
  const all = inked(one.img, { left: 0, top: 0, width: 480, height: 480 });
  console.log('pose', JSON.stringify(all));
  check(all.stroke > 200, `pose: only ${all.stroke} pixels in the stroke colour`);
  check(all.ink < 0.5 * 480 * 480, `pose: ${all.ink} pixels inked, the background is gone`);

  // 0..1 s at 4 fps: 5 frames, 3 x 2 cells of 240 x 240.
  const grid = await shot(page, `${d.url}/v1/pose?skeleton=demo-humanoid&clip=wave&from=0&to=1&fps=4&format=svg`);
  check(grid.width === 720 && grid.height === 480, `grid picture ${grid.width}x${grid.height}`);
  for (let c = 0; c < 5; c++) {
    const cell = inked(grid.img, { left: 240 * (c % 3) + 2, top: 240 * Math.floor(c / 3) + 2, width: 236, height: 236 });
    console.log('cell', c, JSON.stringify(cell));
    check(cell.stroke > 50, `grid cell ${c}: only ${cell.stroke} pixels in the stroke colour`);
  }
  const empty = inked(grid.img, { left: 480 + 2, top: 240 + 2, width: 236, height: 236 });
  check(empty.stroke === 0, `the sixth cell (no frame) has ${empty.stroke} stroke pixels`);

  // The viewer links to the SVG of the pose it shows.
  await page.goto(`${d.url}/viewer?skeleton=demo-humanoid&clip=wave&mesh=none&t=0.5`);
  await page.waitForFunction(() => window.animdViewer && (window.animdViewer.ready || window.animdViewer.error),
    null, { timeout: 30000 });
  const state = await page.evaluate(() => window.animdViewer);
  check(!state.error, 'viewer: ' + JSON.stringify(state.error));
  const href = await page.getAttribute('#svg', 'href');
  check(href === state.svg && href.includes('format=svg') && href.includes(`t=${state.t}`), `SVG link ${href}`);
  const linked = await fetch(new URL(href, d.url));
  check(linked.status === 200 && linked.headers.get('content-type') === 'image/svg+xml', `link answers ${linked.status}`);
  check((await linked.text()).includes('<line data-joint="head"'), 'the linked picture has no head');
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
});
