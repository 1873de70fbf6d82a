// Core's stages in order (docs/ARCHITECTURE.md): crates/core/src/lib.rs numbers its modules
// along the pipeline (1. data … 9. inoculation) and says a stage's code uses only the stages
// above it and the unnumbered modules. This test reads that table, so the numbering is written
// once, and fails when a file of a numbered stage names a module of a later stage through the
// `crate::…` / `super::…` paths its code names (comments left out: a doc link is no arrow; test
// modules counted: a test of a stage that needs a later stage belongs to that later stage).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

import { root, rustFiles } from './graph.mjs';

const src = join(root, 'crates', 'core', 'src');
const lib = readFileSync(join(src, 'lib.rs'), 'utf8');

/**
 * The stage table of lib.rs's module docs: module → its number, `null` for an unnumbered
 * module (`| — | [`rng`] | … |`).
 */
function stageTable(text) {
  const stages = new Map();
  for (const m of text.matchAll(/^\/\/! \| (?:(\d+)\. [^|]*|—) \| \[`(\w+)`\]/gm)) {
    stages.set(m[2], m[1] === undefined ? null : Number(m[1]));
  }
  return stages;
}

/** lib.rs's own re-exports (`pub use data::dataset::{Dataset, …}`): item → the module it is from. */
function rootItems(text) {
  const items = new Map();
  for (const m of text.matchAll(/^pub use (\w+)::[\w:]*?(?:::\{([^}]*)\}|::(\w+));/gm)) {
    const names = m[2] ? m[2].split(',') : [m[3]];
    for (const n of names) items.set(n.trim(), m[1]);
  }
  return items;
}

/**
 * The top-level modules of the crate that `text` (the code of module `mod`, a path such as
 * `data::import::merge`) names: `crate::x…`, the items of `use crate::{…}` (nested braces too),
 * `super::…` chains resolved from `mod`, and items lib.rs re-exports (`crate::Dataset`).
 */
function namedModules(text, mod, items = new Map()) {
  const code = text.replace(/\/\/[^\n]*/g, '');
  const named = new Set();
  const top = (name) => items.get(name) ?? name;
  for (const m of code.matchAll(/\bcrate::(\w+)/g)) named.add(top(m[1]));
  for (const m of code.matchAll(/\bcrate::\{/g)) {
    // The first path segment of each item of the braces, at any depth of nesting that is
    // still at the crate's root: `crate::{data::x, probe::{a, b}}` names data and probe.
    let depth = 0;
    let start = m.index + m[0].length;
    for (let i = start; i < code.length && depth >= 0; i++) {
      const c = code[i];
      if (c === '{') {
        if (depth === 0) named.add(top(code.slice(start, i).trim().split('::')[0]));
        depth += 1;
      } else if (c === '}' || c === ',') {
        if (depth === 0) {
          const item = code.slice(start, i).trim();
          if (item && !item.includes('{')) named.add(top(item.split('::')[0].split(' ')[0]));
          start = i + 1;
        }
        if (c === '}') depth -= 1;
        if (c === ',' && depth === 0) start = i + 1;
      }
    }
  }
  const path = mod.split('::');
  for (const m of code.matchAll(/\b((?:super::)+)(\w+)/g)) {
    const ups = m[1].length / 'super::'.length;
    const base = path.slice(0, Math.max(path.length - ups, 0));
    named.add(base.length > 0 ? base[0] : top(m[2]));
  }
  named.delete('');
  return named;
}

/** The module path of `file` under `src` (`lib.rs`, `mod.rs` name their folder). */
function modulePath(file) {
  const parts = relative(src, file).slice(0, -3).split(sep);
  if (['mod', 'lib'].includes(parts.at(-1))) parts.pop();
  return parts.join('::');
}

/** `file: names later stage (n. module)` for every arrow running back up the stages. */
function backwardArrows(stages, files, items = new Map()) {
  const found = [];
  for (const [file, mod, text] of files) {
    const own = stages.get(mod.split('::')[0]);
    if (own == null) continue;
    for (const n of namedModules(text, mod, items)) {
      const theirs = stages.get(n);
      if (theirs != null && theirs > own) found.push(`${file}: names ${theirs}. ${n} (it is ${own}. ${mod.split('::')[0]})`);
    }
  }
  return found.sort();
}

const stages = stageTable(lib);

test('lib.rs numbers its stages and places every module', () => {
  assert.ok([...stages.values()].filter((n) => n !== null).length >= 9, `stages read: ${[...stages]}`);
  const declared = [...lib.matchAll(/^pub mod (\w+);/gm)].map((m) => m[1]).sort();
  assert.deepEqual([...stages.keys()].sort(), declared, "every `pub mod` of lib.rs is a row of its stage table (numbered, or `—`)");
});

test('core: no stage names a later stage', () => {
  const files = rustFiles(src)
    .map((f) => [relative(root, f), modulePath(f), readFileSync(f, 'utf8')])
    .filter(([, mod]) => mod !== '');
  const found = backwardArrows(stages, files, rootItems(lib));
  assert.deepEqual(found, [], `arrows running back up core's stages (lib.rs):\n${found.join('\n')}`);
});

test('the checker finds an arrow back up when there is one', () => {
  const s = new Map([['data', 1], ['probe', 3], ['run', 5], ['rng', null]]);
  const items = new Map([['Dataset', 'data']]);
  const files = [
    ['a.rs', 'data::validate', 'use crate::probe::review::parse_item_id;'],
    ['b.rs', 'data::import::merge', 'use crate::{rng::Rng, run::{RunResult, pieces}};'],
    ['c.rs', 'probe::build', 'use crate::Dataset;\nuse super::super::run::X;\n// crate::run in a comment'],
    ['d.rs', 'probe', 'use crate::{data::label::Label, rng};\n/// [`crate::run::RunResult`]'],
  ];
  assert.deepEqual(backwardArrows(s, files, items), [
    'a.rs: names 3. probe (it is 1. data)',
    'b.rs: names 5. run (it is 1. data)',
    'c.rs: names 5. run (it is 3. probe)',
  ]);
});
