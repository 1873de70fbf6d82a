// No import circles (docs/ARCHITECTURE.md): within each crate, no chain of files leads from a
// file back to itself through the `crate::…` and `super::…` paths their code names (comments
// and `#[cfg(test)] mod tests` left out; a file naming its own parent or child module, as a
// mod.rs re-exporting its children does, is not counted). Each layer sits on the ones below
// it; a circle means two files cannot be understood, moved or tested apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { graph, root } from './graph.mjs';

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
