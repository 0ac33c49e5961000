/* SPDX-License-Identifier: GPL-2.0-or-later */
// drive.js: runs one page in headless Chromium for tests/test_view.py.
//
// usage: node drive.js < plan.json > result.json
//
// The plan: {"url": "file:///...", "width": 1400, "height": 900,
//            "steps": [STEP, ...]}, a STEP being one of
//   {"eval": "JS expression"}            its value (awaited) is a result
//   {"click": "CSS selector"}            a real mouse click
//   {"dblclick": "CSS selector"}
//   {"select": "CSS selector", "value": "v"}   choose an <option>
//   {"mouse": "move"|"down"|"up", "x": N, "y": N}   page coordinates
//   {"wheel": {"x": N, "y": N, "deltaY": N}}
//   {"frame": true}                      wait until two frames were drawn
//   {"screenshot": "path.png", "fullPage": true}
// The result: {"results": [value of each eval], "console": [errors],
//              "pageErrors": [...], "requests": [URLs other than the page]}.
// Chromium is Debian's (/usr/bin/chromium, or $CATS_CHROMIUM), run with
// --no-sandbox since the tests run as root.
'use strict';
const path = require('path');
const { chromium } = require(path.join(__dirname, 'node_modules', 'playwright-core'));

async function main() {
  const plan = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const browser = await chromium.launch({
    executablePath: process.env.CATS_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'],
  });
  const out = { results: [], console: [], pageErrors: [], requests: [] };
  try {
    const page = await browser.newPage({ viewport: { width: plan.width || 1400, height: plan.height || 900 } });
    // no time limits here: the caller guards against hangs
    page.setDefaultTimeout(0);
    page.setDefaultNavigationTimeout(0);
    page.on('console', (m) => { if (m.type() === 'error') out.console.push(m.text()); });
    page.on('pageerror', (e) => out.pageErrors.push(String(e && e.stack || e)));
    page.on('request', (r) => { if (r.url() !== plan.url && !r.url().startsWith('data:')) out.requests.push(r.url()); });
    if (plan.html !== undefined) await page.setContent(plan.html, { waitUntil: 'load' });
    else await page.goto(plan.url, { waitUntil: 'load' });
    for (const s of plan.steps || []) {
      if (s.eval !== undefined) {
        out.results.push(await page.evaluate(s.eval));
      } else if (s.click !== undefined) {
        await page.click(s.click);
      } else if (s.dblclick !== undefined) {
        await page.dblclick(s.dblclick);
      } else if (s.select !== undefined) {
        await page.selectOption(s.select, s.value);
      } else if (s.mouse !== undefined) {
        if (s.mouse === 'move') await page.mouse.move(s.x, s.y, { steps: s.steps || 1 });
        else if (s.mouse === 'down') { await page.mouse.move(s.x, s.y); await page.mouse.down(); }
        else if (s.mouse === 'up') { await page.mouse.move(s.x, s.y, { steps: 4 }); await page.mouse.up(); }
      } else if (s.wheel !== undefined) {
        await page.mouse.move(s.wheel.x, s.wheel.y);
        await page.mouse.wheel(0, s.wheel.deltaY);
      } else if (s.frame) {
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      } else if (s.screenshot !== undefined) {
        await page.screenshot({ path: s.screenshot, fullPage: !!s.fullPage });
      } else {
        throw new Error('unknown step ' + JSON.stringify(s));
      }
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
