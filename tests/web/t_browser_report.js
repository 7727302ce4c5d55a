// A test suite's HTML report (POST /v1/test?format=html) in headless
// Chromium: every case is listed with its verdict, the page loads nothing
// from elsewhere, and the inline picture of each failing pose or compare
// case renders non-blank (the failing joint of a pose highlighted, both
// poses of a comparison drawn in two colours).
import { check, decodePng, launchBrowser, run, startDaemon } from './lib.js';

const suite = {
  name: 'demo',
  cases: [
    { name: 'wave is clean', check: { clip: 'wave', pop: 90 } },
    {
      name: 'hand somewhere else',
      pose: { skeleton: 'demo-humanoid', layers: [{ clip: 'wave', t: 0.5 }] },
      expect: [{ joint: 'hand_r', position: [9, 9, 9] }],
    },
    {
      name: 'wave is idle',
      compare: { a: { clip: 'wave' }, b: { clip: 'idle' }, tolerance: 0.0001 },
    },
  ],
};

run(async () => {
  const d = await startDaemon();
  const res = await fetch(`${d.url}/v1/test?format=html`, {
    method: 'POST', body: JSON.stringify(suite),
  });
  check(res.status === 422, `status ${res.status}`);
  check(res.headers.get('content-type').startsWith('text/html'), res.headers.get('content-type'));
  const html = await res.text();

  const browser = await launchBrowser();
  const tab = await browser.newPage({ viewport: { width: 900, height: 700 } });
  const errors = [];
  const fetched = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  tab.on('request', (r) => fetched.push(r.url()));
  await tab.setContent(html, { waitUntil: 'load' });
  check(errors.length === 0, 'page errors: ' + errors.join('; '));
  check(fetched.length === 0, 'the report loaded ' + fetched.join(', '));

  const rows = await tab.$$eval('#cases tbody tr', (trs) => trs.map((tr) => ({
    cls: tr.className, cells: [...tr.cells].map((c) => c.textContent),
  })));
  check(rows.length === 3, `${rows.length} rows`);
  check(rows.map((r) => r.cells[1]).join('|') === suite.cases.map((c) => c.name).join('|'),
    'names: ' + JSON.stringify(rows));
  check(rows.map((r) => r.cls).join(',') === 'pass,fail,fail', 'verdicts: ' + JSON.stringify(rows));
  check(rows[1].cells[4].includes('hand_r position off by'), rows[1].cells[4]);

  const sections = await tab.$$('section.case');
  check(sections.length === 2, `${sections.length} failing cases shown`);
  let pictures = 0;
  for (const s of sections) {
    const svg = await s.$('svg');
    check(svg, 'a failing case without a picture');
    const lines = await svg.$$eval('line[data-joint]', (ls) => ls.length);
    check(lines >= 16, `${lines} bones drawn`);
    const img = decodePng(await svg.screenshot());
    let ink = 0;
    for (let i = 0; i < img.width * img.height; i++) {
      const r = img.rgba[4 * i], g = img.rgba[4 * i + 1], b = img.rgba[4 * i + 2];
      if (r + g + b < 600) ink++;
    }
    const share = ink / (img.width * img.height);
    check(share > 0.002 && share < 0.5, `picture ink ${share}`);
    pictures++;
    console.log(`picture ${pictures}: ${img.width}x${img.height}, ${lines} bones, ${(100 * share).toFixed(2)}% drawn`);
  }
  // The comparison draws both poses.
  const colours = await sections[1].$$eval('svg line[data-joint]',
    (ls) => new Set(ls.map((l) => getComputedStyle(l).stroke)).size);
  check(colours >= 2, `${colours} stroke colours in the comparison`);
  console.log('ok: 3 cases listed, 2 pictures rendered, nothing fetched');
});
