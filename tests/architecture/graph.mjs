// The module graph of a crate's `src/`: which files name which (through `crate::…` and
// `super::…` paths; comments and `#[cfg(test)] mod tests` left out; a file naming its own
// parent or child module, as a mod.rs re-exporting its children does, is not counted). Read by
// circles.test.mjs (no import circles) and page_order.test.mjs (the page's rooms in order);
// stages.test.mjs reads the files itself (it counts test modules too).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every `.rs` file under `dir`. */
export function rustFiles(dir) {
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
export function graph(src) {
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
