// Shared set-up for the browser tests: a static server for the built site (dist/) on a free
// loopback port, Debian's Chromium driven by playwright-core, and screenshots as artefacts.
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { readFile, mkdir } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import { chromium } from 'playwright-core';

export const root = fileURLToPath(new URL('../..', import.meta.url));
/** The built site the tests serve: dist/, or the folder `DIST` names (a benchmark comparing
 *  two builds). */
export const dist = process.env.DIST ?? join(root, 'dist');
export const fixtures = join(root, 'tests', 'fixtures');
export const artifacts = join(root, 'tests', 'artifacts');
/** The golden checkpoints of the model crate, served at /test-models/ for URL loading. */
export const testModels = join(root, 'crates', 'model', 'tests', 'golden');

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.json': 'application/json',
};

/** The small files a `<target>-<how>` mode of `serveHostile` makes misbehave. */
const SMALL_TARGETS = { config: 'config.json', tokenizer: 'tokenizer.json', 'tokenizer-config': 'tokenizer_config.json' };

/** How much a gzip bomb inflates to: a hundred times a config.json's ceiling (1 MiB). */
export const GZIP_BOMB_BYTES = 200_000_000;
let bomb;
/** The gzip bomb's body (about 200 KB), made once on first use. */
const gzipBomb = () => (bomb ??= gzipSync(Buffer.alloc(GZIP_BOMB_BYTES, 0x20), { level: 9 }));

/** Answers with a small JSON file that misbehaves as `how` says (issue 47 item 3):
 *  - `endless`: no Content-Length, a body that streams `{"pad": "` and spaces for ever (as
 *    fast as the reader takes them, until it stops reading);
 *  - `huge-length`: announces Content-Length 3200000000, sends 1 KB and closes;
 *  - `gzip-bomb`: `content-encoding: gzip`, a body of about 200 KB that inflates to 200 MB.
 *  `headers`: more headers to send (a Hub's CORS headers). */
export function misbehave(res, how, headers = {}) {
  const json = { ...headers, 'content-type': 'application/json', 'cache-control': 'no-store' };
  switch (how) {
    case 'endless': {
      res.writeHead(200, json);
      res.write('{"pad": "');
      const spaces = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(spaces));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
      return;
    }
    case 'huge-length':
      res.writeHead(200, { ...json, 'content-length': '3200000000' });
      res.write(Buffer.alloc(1024, 0x20), () => res.destroy());
      return;
    case 'gzip-bomb': {
      const body = gzipBomb();
      res.writeHead(200, { ...json, 'content-encoding': 'gzip', 'content-length': String(body.length) });
      res.end(body);
      return;
    }
    default:
      res.writeHead(404).end(`unknown misbehaviour ${how}`);
  }
}

/** A checkpoint server that misbehaves, under /hostile/<mode>/<file>: the files are those of
 *  the tiny-f32 test checkpoint, and `mode` says how the server lies about model.safetensors
 *  (or, for `html` and `not-found`, about every file):
 *  - `huge-length`: announces Content-Length 4000000000, sends 1 KB and closes;
 *  - `truncated`: announces the real length, sends half and closes;
 *  - `never-ends`: announces the real length, sends 1 KB, then nothing, never closing;
 *  - `html`: answers every file with an HTML page (200, text/html), as SPA servers do;
 *  - `not-found`: answers 404 to everything; `status-500`: answers 500 to model.safetensors;
 *  - `<target>-<how>` (`config-endless`, `tokenizer-config-gzip-bomb`, …): the small file
 *    `target` names (`config`, `tokenizer`, `tokenizer-config`: see SMALL_TARGETS) misbehaves
 *    as `misbehave`'s `how` says, the other files are honest.
 *  The same checkpoints answer as a Hub would under /hostile-hub/<org>/<mode>/resolve/<revision>/<file>
 *  (the endpoint to give "Load from the Hub" is `<site>/hostile-hub`).
 *  Returns true when it answered. */
async function serveHostile(path, req, res) {
  const m = path.match(/^\/hostile\/([a-z0-9-]+)\/([^/]+)$/)
    ?? path.match(/^\/hostile-hub\/[^/]+\/([a-z0-9-]+)\/resolve\/[^/]+\/([^/]+)$/);
  if (!m) return false;
  const [, mode, file] = m;
  const small = mode.match(/^(config|tokenizer|tokenizer-config)-(endless|huge-length|gzip-bomb)$/);
  if (small && SMALL_TARGETS[small[1]] === file) {
    misbehave(res, small[2]);
    return true;
  }
  if (mode === 'not-found') { res.writeHead(404).end('not found'); return true; }
  if (mode === 'html') {
    res.writeHead(200, { 'content-type': types['.html'] }).end('<!DOCTYPE html><html><body>Welcome</body></html>');
    return true;
  }
  let body;
  try { body = await readFile(join(testModels, 'tiny-f32', file)); } catch { res.writeHead(404).end(); return true; }
  if (file !== 'model.safetensors' || small) {
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
    return true;
  }
  const octets = { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' };
  switch (mode) {
    case 'huge-length':
      res.writeHead(200, { ...octets, 'content-length': '4000000000' });
      res.write(body.subarray(0, 1024), () => res.destroy());
      return true;
    case 'truncated':
      res.writeHead(200, { ...octets, 'content-length': String(body.length) });
      res.write(body.subarray(0, body.length >> 1), () => res.destroy());
      return true;
    case 'never-ends':
      res.writeHead(200, { ...octets, 'content-length': String(body.length) });
      res.write(body.subarray(0, 1024));
      return true;
    case 'status-500':
      res.writeHead(500).end('internal error');
      return true;
    default:
      res.writeHead(404).end('unknown hostile mode');
      return true;
  }
}

/** Serves dist/ on 127.0.0.1 with an index.html fallback, like `trunk serve`, the test
 *  checkpoints under /test-models/ and a misbehaving checkpoint server under /hostile/ (see
 *  `serveHostile`). `requests` counts what was asked for, by path. */
/**
 * Serves dist/ (and the test models). `workerCores` (benchmarks only) makes the model worker see
 * that many logical cores (`navigator.hardwareConcurrency` in the worker's scope), so it starts
 * that many scoring workers in all.
 */
export async function serveDist({ workerCores } = {}) {
  const requests = new Map();
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    requests.set(path, (requests.get(path) ?? 0) + 1);
    if (await serveHostile(path, req, res)) return;
    const file = path.startsWith('/test-models/')
      ? join(testModels, path.slice('/test-models/'.length))
      : path.endsWith('/') ? join(dist, path, 'index.html') : join(dist, path);
    try {
      let body = await readFile(file);
      if (workerCores && path === '/worker_loader.js') {
        body = `Object.defineProperty(Object.getPrototypeOf(self.navigator), 'hardwareConcurrency', { get: () => ${Number(workerCores)} });\n${body}`;
      }
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      if (extname(path)) {
        res.writeHead(404).end('not found');
      } else {
        res.writeHead(200, { 'content-type': types['.html'] }).end(await readFile(join(dist, 'index.html')));
      }
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  // A hostile download may never end: close its connection rather than wait for it.
  const close = () => new Promise((r) => { server.close(r); server.closeAllConnections(); });
  return { url: `http://127.0.0.1:${port}/`, requests, close };
}

/** Debian's Chromium and the flags that work as root on these machines. */
const chromiumOptions = (extraArgs) => ({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ...extraArgs,
  ],
});

/** Launches Debian's Chromium headless with the flags that work as root on these machines. */
export async function launch(extraArgs = []) {
  return chromium.launch(chromiumOptions(extraArgs));
}

/** A Chromium whose profile lives in `dir` (kept when it closes, so the next launch on `dir`
 *  is the same browser profile with a fresh browser process). */
export async function launchProfile(dir, { viewport = { width: 1280, height: 860 } } = {}) {
  return chromium.launchPersistentContext(dir, { ...chromiumOptions([]), viewport });
}

/** The site server and one Chromium for a whole test file (awaited at the file's top level),
 *  both stopped after its last test. */
export async function openSite(extraArgs = []) {
  const server = await serveDist();
  let browser;
  try {
    browser = await launch(extraArgs);
  } catch (e) {
    await server.close();
    throw e;
  }
  after(async () => {
    await browser.close();
    await server.close();
  });
  return { server, browser };
}

/** The bundled models' manifest the site fetches on start (models/index.json). */
export const MANIFEST = '**/models/index.json';

/** Makes `target` (a page or a browser context) see a manifest with `models` (default: none),
 *  so a test loads exactly the model it means to, whatever public/models/ bundles. */
export async function routeManifest(target, models = []) {
  await target.route(MANIFEST, (route) => route.fulfill({
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify({ format: 'tabprobe-models', version: 1, models }),
  }));
}

/** Opens a page that fails the test on any uncaught page error or console error. Bundled
 *  models are hidden (an empty manifest) unless `bundled` is true. */
export async function openPage(browser, url, { bundled = false, viewport = { width: 1280, height: 860 } } = {}) {
  const page = await browser.newPage({ viewport });
  if (!bundled) await routeManifest(page);
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  await page.goto(url);
  return { page, errors };
}

/** Watches the page's main thread in `target` (a page or a browser context), from before the
 *  page's own scripts: a PerformanceObserver('longtask') keeps each long task (over 50 ms),
 *  and a capturing 'change' listener on the window, which runs before any of the page's own,
 *  notes when picked files reach the page — a long task that goes on past that moment was the
 *  browser's work of handing the files over up to it, and the page's only after. Read with
 *  `longTasksSince`. */
export async function watchLongTasks(target) {
  await target.addInitScript(() => {
    window.__longtasks = [];
    window.__filesAt = [];
    window.addEventListener('change', (e) => {
      if (e.target?.type === 'file') window.__filesAt.push(performance.now());
    }, true);
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longtasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  });
}

/** The long tasks `watchLongTasks` saw start between `t0` and `t1` (the page's clock), each
 *  as { start, duration, pagePart, filesAt }: `pagePart` is the part after picked files
 *  reached the page (`filesAt`, when they did within the task), else the whole task. */
export async function longTasksSince(page, t0, t1 = Infinity) {
  const { tasks, files } = await page.evaluate(() => ({ tasks: window.__longtasks, files: window.__filesAt }));
  // The long task's end and the listener's clock can differ by a millisecond.
  const within = (a, s, d) => a >= s && a <= s + d + 1;
  return tasks.filter(([s]) => s >= t0 && s < t1).map(([start, duration]) => {
    const filesAt = files.find((a) => within(a, start, duration));
    const pagePart = filesAt === undefined ? duration : Math.max(0, start + duration - filesAt);
    return { start, duration, pagePart, filesAt };
  });
}

/** Saves a full-page screenshot under tests/artifacts/. */
export async function snap(page, name) {
  await mkdir(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

/** What is wrong with the labels of the transition graphs `svgs` (a locator of their <svg>s):
 *  a node name wider than its node, an edge label over a node name, or a label cut off by
 *  the drawing's edge. Empty when readable. */
export async function graphLabelSpills(svgs) {
  return svgs.evaluateAll((all) => all.flatMap((svg) => {
    const box = (el) => el.getBoundingClientRect();
    const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const names = [...svg.querySelectorAll('.node')].map((g) => [g.querySelector('text'), g.querySelector('ellipse')]);
    const out = names.filter(([t, e]) => { const [a, b] = [box(t), box(e)]; return a.left < b.left || a.right > b.right; })
      .map(([t]) => `${t.textContent} outside its node`);
    const frame = box(svg);
    for (const t of svg.querySelectorAll('text')) {
      const b = box(t);
      if (b.left < frame.left || b.right > frame.right || b.top < frame.top || b.bottom > frame.bottom) out.push(`${t.textContent} cut off`);
    }
    for (const label of svg.querySelectorAll('[data-testid="edge-label"]')) {
      for (const [t] of names) if (overlap(box(label), box(t))) out.push(`${label.textContent} over ${t.textContent}`);
    }
    return out;
  }));
}
