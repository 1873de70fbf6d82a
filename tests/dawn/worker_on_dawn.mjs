// The model worker's own wasm (the file Trunk puts in dist/ and the page starts as a Web
// Worker) run under Node on Dawn, the WebGPU engine Chrome uses, through npm's `webgpu`
// package (the Dawn project's `dawn.node`). Nothing here imitates the model: the worker gets
// the messages the page would send and answers as it would in a browser. What a worker thread
// has and Node lacks is given the smallest stand-in that behaves the same for the worker:
// the global scope's class names (wasm-bindgen checks `instanceof`), `postMessage` /
// `onmessage`, and `FileReaderSync` (the worker reads a checkpoint's Blob a range at a time).
//
// Which adapter Dawn gives depends on the Vulkan driver it finds: SwiftShader (Debian's
// chromium package installs it) in the tests, a real GPU where `VK_DRIVER_FILES` names one.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import vm from 'node:vm';
import { create, globals } from 'webgpu';

/** Where `trunk build` leaves the site (scripts/test.sh builds it before these tests). */
export const DIST = new URL('../../dist/', import.meta.url).pathname;

/** SwiftShader's Vulkan driver as Debian's chromium package installs it. */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** The worker's wasm-bindgen glue and wasm in `dist` (`worker.js`, `worker_bg.wasm`). */
export async function workerFiles(dist = DIST) {
  const names = await readdir(dist).catch(() => []);
  const glue = names.find((n) => /^worker(-[0-9a-f]+)?\.js$/.test(n));
  const wasm = names.find((n) => /^worker(-[0-9a-f]+)?_bg\.wasm$/.test(n));
  if (!glue || !wasm) {
    throw new Error(`no worker build in ${dist} (worker.js and worker_bg.wasm): run \`trunk build --release --offline\` first`);
  }
  return { glue: join(dist, glue), wasm: join(dist, wasm) };
}

/** A Blob whose bytes the stand-in FileReaderSync can hand back synchronously, as a browser's
 *  FileReaderSync reads a File. Node's Blob can only be read asynchronously. */
export class ReadableBlob extends Blob {
  constructor(bytes) {
    super([bytes]);
    this.bytes = bytes;
  }

  slice(start = 0, end = this.bytes.length) {
    return new ReadableBlob(this.bytes.subarray(start, end));
  }
}

class FileReaderSync {
  readAsArrayBuffer(blob) {
    if (!(blob instanceof ReadableBlob)) throw new TypeError('FileReaderSync stand-in: not a ReadableBlob');
    return blob.bytes.slice().buffer;
  }
}

/**
 * Makes Dawn's `navigator.gpu` with `flags` (Dawn toggles such as `backend=vulkan`) and the
 * worker's global scope on this Node process. Call once per process: a worker owns its
 * thread's global scope, as in a browser.
 */
function installWorkerScope(flags, onMessage) {
  Object.assign(globalThis, globals);
  const gpu = create(flags);
  class WorkerGlobalScope extends EventTarget {}
  class DedicatedWorkerGlobalScope extends WorkerGlobalScope {}
  // wasm-bindgen's `dyn_into::<DedicatedWorkerGlobalScope>()` is `globalThis instanceof …`.
  Object.setPrototypeOf(globalThis, DedicatedWorkerGlobalScope.prototype);
  Object.defineProperty(globalThis, 'navigator', {
    value: { gpu, hardwareConcurrency: 1, userAgent: 'tabprobe Dawn harness' },
    configurable: true,
    writable: true,
  });
  Object.assign(globalThis, {
    WorkerGlobalScope,
    DedicatedWorkerGlobalScope,
    FileReaderSync,
    self: globalThis,
    isSecureContext: true,
    postMessage: (message) => onMessage(message),
  });
  return gpu;
}

/**
 * What the worker asked of Dawn, counted from the moment its scope is installed: the features
 * of every device it requested, how many WGSL modules it compiled, and how many of those enable
 * `subgroups` — CubeCL's plane kernels. With wgpu 30.0.1 the device never asks for subgroups
 * and no module uses them (issue 33, item 4; docs/benchmarks.md says why); bench.mjs prints
 * both, so a run on a real GPU shows whether that has changed.
 */
export const gpuLog = { requiredFeatures: [], modules: 0, subgroupModules: 0 };

/** Counts into [`gpuLog`] by wrapping two of Dawn's own methods (they still do the work). */
function recordGpuUse() {
  const adapter = globalThis.GPUAdapter.prototype;
  const requestDevice = adapter.requestDevice;
  adapter.requestDevice = function recordFeatures(descriptor = {}) {
    gpuLog.requiredFeatures.push(...(descriptor.requiredFeatures ?? []));
    return requestDevice.call(this, descriptor);
  };
  const device = globalThis.GPUDevice.prototype;
  const createShaderModule = device.createShaderModule;
  device.createShaderModule = function recordModule(descriptor) {
    gpuLog.modules += 1;
    if (/^\s*enable\s+[^;]*\bsubgroups\b/m.test(descriptor.code)) gpuLog.subgroupModules += 1;
    return createShaderModule.call(this, descriptor);
  };
}

/** The JSON header and byte parts of one worker message. */
function decode(message) {
  const [header, ...rest] = message;
  return { header: JSON.parse(header), parts: rest.filter((p) => p instanceof Uint8Array) };
}

/** The one variant of an externally tagged serde enum: `["Scores", {...}]`; `["Ready", null]`. */
export function variant(header) {
  if (typeof header === 'string') return [header, null];
  const [name] = Object.keys(header);
  return [name, header[name]];
}

/**
 * Starts the worker's wasm on Dawn and waits for its `Ready`. Returns the worker: `send`
 * posts a request, `next(predicate)` waits for the first response it accepts (a `Panicked`
 * or `BadRequest` rejects every wait), and `gpu` is the `navigator.gpu` it was given.
 */
export async function startWorker({ flags = [], dist = DIST } = {}) {
  const waiting = [];
  const queue = [];
  let fatal = null;
  const deliver = (message) => {
    const { header, parts } = decode(message);
    const [name, body] = variant(header);
    if (name === 'Panicked' || name === 'BadRequest') {
      fatal = new Error(`worker ${name}: ${body.message}`);
      for (const w of waiting.splice(0)) w.reject(fatal);
      return;
    }
    const response = { name, body, parts };
    const i = waiting.findIndex((w) => w.accepts(response));
    if (i >= 0) waiting.splice(i, 1)[0].resolve(response);
    else queue.push(response);
  };
  const gpu = installWorkerScope(flags, deliver);
  recordGpuUse();
  const files = await workerFiles(dist);
  // Trunk builds the worker with wasm-bindgen's `no-modules` target: a classic script that
  // declares `wasm_bindgen`, as `importScripts` would run it in a worker.
  const glue = await readFile(files.glue, 'utf8');
  vm.runInThisContext(`${glue}\nglobalThis.wasm_bindgen = wasm_bindgen;`, { filename: files.glue });

  const next = (accepts, timeoutMs = 600_000) => {
    if (fatal) return Promise.reject(fatal);
    const i = queue.findIndex(accepts);
    if (i >= 0) return Promise.resolve(queue.splice(i, 1)[0]);
    return new Promise((resolve, reject) => {
      const entry = { accepts, resolve, reject };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(entry), 1);
        reject(new Error(`no worker answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      entry.resolve = (v) => { clearTimeout(timer); resolve(v); };
      entry.reject = (e) => { clearTimeout(timer); reject(e); };
      waiting.push(entry);
    });
  };
  const ready = next((r) => r.name === 'Ready');
  await globalThis.wasm_bindgen({ module_or_path: await readFile(files.wasm) });
  await ready;

  const send = (header, parts = [], blob = undefined) => {
    const message = [JSON.stringify(header), ...parts];
    if (blob) message.push(blob);
    globalThis.onmessage({ data: message });
  };
  return { send, next, gpu };
}

/**
 * Loads the checkpoint folder `dir` (config.json, tokenizer.json, tokenizer_config.json if
 * there, model.safetensors) into the main slot on `backend`, as the page's file picker does;
 * `tokenizerDir` takes the two tokenizer files from another folder.
 * Resolves with the worker's `ModelInfo`; rejects with its load error.
 */
export async function loadCheckpoint(worker, dir, { backend = 'webgpu', name = dir, load = 1, tokenizerConfig, tokenizerDir = dir } = {}) {
  const part = async (f, from = dir) => new Uint8Array(await readFile(join(from, f)));
  const parts = [await part('config.json'), await part('tokenizer.json', tokenizerDir)];
  // `tokenizerConfig` (an object) stands in for the folder's tokenizer_config.json.
  const config = tokenizerConfig
    ? new TextEncoder().encode(JSON.stringify(tokenizerConfig))
    : await part('tokenizer_config.json', tokenizerDir).catch(() => null);
  if (config) parts.push(config);
  const weights = new ReadableBlob(await part('model.safetensors'));
  worker.send(
    { LoadModel: { slot: 'main', name, tokenizer: 'Json', batch_size: 8, load, backend } },
    parts,
    weights,
  );
  const reply = await worker.next((r) => (r.name === 'ModelLoaded' || r.name === 'LoadFailed') && r.body.load === load);
  if (reply.name === 'LoadFailed') throw new Error(`${name}: load failed: ${reply.body.message}`);
  return reply.body.info;
}

let jobs = 0;

/** Scores `pairs` ({premise, hypothesis}) with the main model in one request; resolves with
 *  the worker's `Scores` (`scores`, `elapsed_ms`), rejects with its `JobFailed` error. */
export async function score(worker, pairs) {
  const job = ++jobs;
  worker.send({ Score: { job, slot: 'main', pairs } });
  const reply = await worker.next((r) => (r.name === 'Scores' || r.name === 'JobFailed') && r.body.job === job);
  if (reply.name === 'JobFailed') throw new Error(`scoring failed: ${JSON.stringify(reply.body.error)}`);
  return reply.body;
}
