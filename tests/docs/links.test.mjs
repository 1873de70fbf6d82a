// Every relative link and image in the README and the docs points at a file that exists in the
// repository (and is not ignored by git), and every `#anchor` at a heading — or an explicit
// `<a id>` — of the target page, slugged the way GitHub does. Run: `node --test tests/docs/`
// (Node 20, no dependencies). A failure names the file, the line and the link.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The Markdown files checked: README.md, every .md under docs/, and crates/<crate>/README.md. */
export function markdownFiles(root = ROOT) {
  const files = [];
  const readme = join(root, 'README.md');
  if (existsSync(readme)) files.push(readme);
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(root, 'docs'));
  const crates = join(root, 'crates');
  if (existsSync(crates)) {
    for (const name of readdirSync(crates).sort()) {
      const path = join(crates, name, 'README.md');
      if (existsSync(path)) files.push(path);
    }
  }
  return files;
}

/** The anchor GitHub gives a heading: lower case, punctuation and symbols dropped (letters,
 *  marks, digits, `_`, `-` and spaces kept), each space a hyphen. */
export function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** A heading's text as GitHub renders it: code spans, links and images reduced to their text,
 *  HTML tags and emphasis markers dropped. */
export function headingText(raw) {
  return raw
    .replace(/(`+)(.*?)\1/g, (_, _ticks, code) => code.trim())
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/\*+/g, '')
    .trim();
}

/** For each line of `text`, whether it belongs to a fenced code block (the fences included). */
export function fencedLines(text) {
  let fence = null;
  return text.split('\n').map((line) => {
    if (fence) {
      const close = line.match(/^ {0,3}(`{3,}|~{3,})[ \t]*$/);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) fence = null;
      return true;
    }
    const open = line.match(/^ {0,3}(`{3,}|~{3,})/);
    if (open) fence = open[1];
    return Boolean(open);
  });
}

/** The text with fenced code blocks and inline code spans blanked out (lengths and newlines
 *  kept, so offsets still give line numbers): links inside code are not links. */
export function withoutCode(text) {
  const fenced = fencedLines(text);
  return text
    .split('\n')
    .map((line, i) => (fenced[i] ? ' '.repeat(line.length) : line))
    .join('\n')
    .replace(/(`+)[\s\S]*?\1/g, (m) => m.replace(/[^\n]/g, ' '));
}

/** Every anchor a Markdown page offers: its headings' slugs (a repeated slug gets -1, -2, … as
 *  on GitHub) and the ids and names of its HTML elements. */
export function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  const fenced = fencedLines(text);
  text.split('\n').forEach((line, i) => {
    if (fenced[i]) return;
    const h = line.match(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/);
    if (!h) return;
    const base = slug(headingText(h[1]));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  });
  for (const m of withoutCode(text).matchAll(/<[a-z][^>]*?\s(?:id|name)="([^"]+)"/gi)) anchors.add(m[1]);
  return anchors;
}

const anchorCache = new Map();
function anchorsOfFile(path) {
  if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')));
  return anchorCache.get(path);
}

/** Every link of a Markdown text: `[text](target)`, `![alt](target)`, reference definitions
 *  `[label]: target`, and `href` / `src` of HTML elements — with its line and as written. */
export function linksOf(text) {
  const clean = withoutCode(text);
  const lineAt = (offset) => clean.slice(0, offset).split('\n').length;
  const links = [];
  const inline = /!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>\n]*>|[^\s()]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
  for (const m of clean.matchAll(inline)) {
    links.push({ line: lineAt(m.index), written: text.slice(m.index, m.index + m[0].length).replace(/\s*\n\s*/g, ' '), target: m[1].replace(/^<|>$/g, '') });
  }
  for (const m of clean.matchAll(/^ {0,3}\[[^\]]+\]:[ \t]*(<[^>\n]*>|\S+)/gm)) {
    links.push({ line: lineAt(m.index), written: m[0].trim(), target: m[1].replace(/^<|>$/g, '') });
  }
  for (const m of clean.matchAll(/<(?:a|img|source)\b[^>]*?\s(?:href|src)="([^"]*)"/gi)) {
    links.push({ line: lineAt(m.index), written: m[0], target: m[1] });
  }
  return links;
}

const ignoredCache = new Map();
/** Whether git ignores `rel` (a link to it would be broken in a clone); false without git. */
function ignoredByGit(rel) {
  if (!ignoredCache.has(rel)) {
    const r = spawnSync('git', ['check-ignore', '-q', '--', rel], { cwd: ROOT });
    ignoredCache.set(rel, r.status === 0);
  }
  return ignoredCache.get(rel);
}

/** The problems of one Markdown file's links, as `file:line: link: what is wrong`. */
export function checkFile(path, root = ROOT) {
  const text = readFileSync(path, 'utf8');
  const rel = relative(root, path).split(sep).join('/');
  const problems = [];
  for (const { line, written, target } of linksOf(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http:, mailto:, …
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    const where = `${rel}:${line}: ${written}`;
    const dest = pathPart === '' ? path : pathPart.startsWith('/') ? join(root, pathPart) : resolve(dirname(path), pathPart);
    const destRel = relative(root, dest).split(sep).join('/');
    if (destRel.startsWith('..') || destRel.startsWith('/')) {
      problems.push(`${where}: points outside the repository (${destRel})`);
      continue;
    }
    if (!existsSync(dest)) {
      problems.push(`${where}: no file ${destRel || '.'}`);
      continue;
    }
    if (destRel !== '' && ignoredByGit(destRel)) {
      problems.push(`${where}: ${destRel} is ignored by git, so a clone does not have it`);
      continue;
    }
    if (anchor !== null && anchor !== '' && statSync(dest).isFile() && dest.endsWith('.md')) {
      if (!anchorsOfFile(dest).has(anchor)) {
        problems.push(`${where}: no heading or id in ${destRel} makes the anchor #${anchor}`);
      }
    }
  }
  return problems;
}

test('GitHub-style heading slugs', () => {
  assert.equal(slug(headingText('Tables 4 and 7: scores under perturbation')), 'tables-4-and-7-scores-under-perturbation');
  assert.equal(slug(headingText('Side by side: `scripts/bench.sh`')), 'side-by-side-scriptsbenchsh');
  assert.equal(slug(headingText("The page's main thread")), 'the-pages-main-thread');
  assert.equal(slug(headingText('core ↔ model')), 'core--model');
  assert.equal(slug(headingText('`pytorch_model.bin`')), 'pytorch_modelbin');
  assert.equal(slug(headingText('2026-11-27')), '2026-11-27');
  assert.deepEqual([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n<a id="x"></a>\n')], ['a', 'a-1', 'x']);
});

test('links inside code are not links', () => {
  const links = linksOf('see [a](a.md)\n```\n[b](b.md)\n```\nand `[c](c.md)` and ![d](d.png)\n');
  assert.deepEqual(links.map((l) => [l.line, l.target]), [[1, 'a.md'], [5, 'd.png']]);
});

const files = markdownFiles();

test('the README and the docs index are checked', () => {
  const rels = files.map((f) => relative(ROOT, f).split(sep).join('/'));
  assert.ok(rels.includes('README.md'), rels.join(', '));
  assert.ok(rels.includes('docs/README.md'), rels.join(', '));
});

for (const file of files) {
  const rel = relative(ROOT, file).split(sep).join('/');
  test(`every relative link in ${rel} resolves`, () => {
    const problems = checkFile(file);
    if (problems.length > 0) {
      assert.fail(`${problems.length} broken link(s) in ${rel}:\n  ${problems.join('\n  ')}`);
    }
  });
}
