// The page's rooms in one order (src/lib.rs, docs/ARCHITECTURE.md): each room's files name only
// rooms below it in ROOMS — never one above, so no arrow runs back up (a worker client that
// reaches into the runs, a state that holds a run's type). Rooms on one step may not name each
// other either way except as listed on that step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { graph, root } from './graph.mjs';

/** Bottom first; a step's rooms may name each other (timing and route are independent). */
const ROOMS = [['timing', 'route'], ['worker'], ['state'], ['storage'], ['models'], ['runs'],
  ['components'], ['views'], ['app']];

/** The step of module path `m` (its first segment's room), or -1 for the crate root. */
const step = (m) => ROOMS.findIndex((rooms) => rooms.includes(m.split('::')[0]));

/** Every arrow of `edges` that runs from a room to one on a higher step. */
function upArrows(edges) {
  const up = [];
  for (const [from, names] of edges) {
    for (const to of names) {
      if (step(from) >= 0 && step(to) > step(from)) up.push(`${from} → ${to}`);
    }
  }
  return up.sort();
}

test('the page: every room is listed, and src/lib.rs lists them in this order', () => {
  const lib = readFileSync(join(root, 'src', 'lib.rs'), 'utf8');
  const declared = [...lib.matchAll(/^pub mod (\w+);/gm)].map((m) => m[1]).sort();
  assert.deepEqual(declared, ROOMS.flat().sort());
  const listed = [...lib.matchAll(/^\/\/! \d+\. (.*)$/gm)]
    .map((m) => [...m[1].matchAll(/\[`(\w+)`\]/g)].map((r) => r[1]));
  assert.deepEqual(listed.flat(), ROOMS.flat(), 'src/lib.rs lists the rooms in another order');
});

test('the page: no room names a room above it', () => {
  const up = upArrows(graph(join(root, 'src')));
  assert.deepEqual(up, [], `arrows running back up:\n${up.join('\n')}`);
});

test('the checker finds an arrow up when there is one', () => {
  const edges = new Map([['worker::client', ['runs::store', 'timing']], ['views::x', ['state']]]);
  assert.deepEqual(upArrows(edges), ['worker::client → runs::store']);
});
