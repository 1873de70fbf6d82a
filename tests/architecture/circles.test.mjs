// No import circles (docs/ARCHITECTURE.md): within each crate, no chain of files leads from a
// file back to itself through the `crate::…` and `super::…` paths their code names (comments
// and `#[cfg(test)] mod tests` left out; a file naming its own parent or child module, as a
// mod.rs re-exporting its children does, is not counted). Each layer sits on the ones below
// it; a circle means two files cannot be understood, moved or tested apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every `.rs` file under `dir`. */
function rustFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return rustFiles(p);
    return name.endsWith('.rs') ? [p] : [];
  });
}

/** The module path of `file` under the crate root `src` (`lib.rs`, `mod.rs` name their folder). */
function modulePath(src, file) {
  const parts = relative(src, file).slice(0, -3).split(sep);
  if (['mod', 'lib', 'main'].includes(parts.at(-1))) parts.pop();
  return parts.join('::');
}

const isPrefix = (a, b) => a === '' || b === a || b.startsWith(`${a}::`);

/** The module graph of the crate at `src`: module → modules its code names. */
function graph(src) {
  const files = new Map(rustFiles(src).map((f) => [modulePath(src, f), f]));
  const edges = new Map();
  for (const [mod, file] of files) {
    let text = readFileSync(file, 'utf8');
    text = text.replace(/#\[cfg\(test\)\]\s*mod tests\s*\{[\s\S]*/, '').replace(/\/\/[^\n]*/g, '');
    const named = new Set();
    const resolve = (path) => {
      const parts = path.split('::').filter((p) => /^\w+$/.test(p));
      for (let k = parts.length; k > 0; k--) {
        const m = parts.slice(0, k).join('::');
        if (files.has(m)) return m;
      }
      return null;
    };
    for (const m of text.matchAll(/\bcrate((?:::\w+)+)/g)) named.add(resolve(m[1].slice(2)));
    for (const m of text.matchAll(/\buse crate::\{([^;]*)\};/g)) {
      for (const item of m[1].split(',')) named.add(resolve(item.trim()));
    }
    // `super::x` is the parent module's `x` (a mod.rs's module path already names its folder).
    const parent = mod === '' ? [] : mod.split('::').slice(0, -1);
    for (const m of text.matchAll(/\bsuper((?:::\w+)+)/g)) {
      named.add(resolve([...parent, ...m[1].slice(2).split('::')].join('::')));
    }
    named.delete(null);
    named.delete(mod);
    edges.set(mod, [...named].filter((n) => !isPrefix(n, mod) && !isPrefix(mod, n)));
  }
  return edges;
}

/** The circles of `edges`: strongly connected components of more than one module (Tarjan). */
function circles(edges) {
  let next = 0;
  const index = new Map(); const low = new Map(); const stack = []; const on = new Set(); const found = [];
  const visit = (v) => {
    index.set(v, next); low.set(v, next); next += 1; stack.push(v); on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const comp = [];
      let w;
      do { w = stack.pop(); on.delete(w); comp.push(w); } while (w !== v);
      if (comp.length > 1) found.push(comp.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

const crates = [['tabprobe (the page)', join(root, 'src')],
  ...readdirSync(join(root, 'crates')).map((c) => [c, join(root, 'crates', c, 'src')])
    .filter(([, p]) => { try { return statSync(p).isDirectory(); } catch { return false; } })];

for (const [name, src] of crates) {
  test(`${name}: no import circles`, () => {
    const found = circles(graph(src)).map((c) => c.map((m) => m || '(crate root)').join(' → '));
    assert.deepEqual(found, [], `files that import each other (through a chain):\n${found.join('\n')}`);
  });
}

test('the checker finds a circle when there is one', () => {
  const edges = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  assert.deepEqual(circles(edges), [['a', 'b', 'c']]);
});
