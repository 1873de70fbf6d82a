// Share links built here, independently of the Rust encoder, from the documented format
// (crates/core/src/share/codec.rs): "v1." + base64url(len BE32, CRC-32 BE32, deflate-raw(JSON)).
// Used by the share tests and by the main-thread benchmark, which opens the largest links the
// share limits allow (crates/core/src/share/limits.rs) and hostile ones past them.
import { deflateRawSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The link text for the JSON text `json`, deflated at `level` (0: stored, as incompressible
 *  data ends up). */
export function linkOfJson(json, { level } = {}) {
  const body = deflateRawSync(Buffer.from(json), level === undefined ? {} : { level });
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.writeUInt32BE(crc32(body), 4);
  return `v1.${Buffer.concat([head, body]).toString('base64url')}`;
}

/** The link text for `result`. */
export const linkOf = (result, options) => linkOfJson(JSON.stringify(result), options);

/** The share limits (crates/core/src/share/limits.rs). */
export const LIMITS = { rows: 1000, cells: 20_000, chars: 1_000_000 };

/** What every hand-built result needs besides its items. */
export const BASE = { origin: 'hand-built', operation: 'hand_edit_table', linearization: { strategy: 'infotabs_compat', order: 'premise_first' } };

/** A seeded generator of `n`-character strings drawn from `alphabet` (an array of
 *  characters). */
function texts(alphabet, seed = 12345) {
  let x = seed;
  return (n) => Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return alphabet[x % alphabet.length];
  }).join('');
}

/** Characters of the widest JSON: control characters, written `\u0001` (6 bytes each). */
export const WIDEST = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1));
/** Characters that compress least: 65,536 different astral-plane characters (4 bytes of
 *  UTF-8 each, 16 bits of chance). */
export const LEAST_COMPRESSIBLE = Array.from({ length: 65_536 }, (_, i) => String.fromCodePoint(0x20000 + i));

/** The largest result the share limits allow: an original and an edited key-value table of
 *  1,000 rows and 20,000 cells each, their cells holding 960,000 characters drawn from
 *  `alphabet`, and hypotheses. */
export function largestResult(alphabet) {
  const text = texts(alphabet);
  const perCell = Math.floor(LIMITS.chars / (2 * LIMITS.cells)) - 1;
  const values = LIMITS.cells / LIMITS.rows - 1;
  const table = (id) => ({
    kind: 'key_value', id, title: 'Largest',
    rows: Array.from({ length: LIMITS.rows }, () => ({ key: text(perCell), values: Array.from({ length: values }, () => text(perCell)) })),
  });
  return {
    ...BASE,
    origin: 'the largest result the share limits allow',
    before: { table: table('A'), hypothesis: 'The table is large.' },
    after: { table: table('B'), hypothesis: 'The table is large.' },
  };
}

/** A result whose JSON has `rows` tiny rows: within the bytes a link may inflate to up to
 *  about 250,000, but far past the row limit. */
export function tinyRows(rows) {
  return {
    ...BASE,
    before: { table: { kind: 'key_value', id: 'T', title: 't', rows: Array.from({ length: rows }, () => ({ key: 'k', values: ['v'] })) }, hypothesis: 'h' },
    after: { hypothesis: 'h' },
  };
}

/** A link of about `mb` million characters: a hypothesis of random text, stored. */
export function linkOfMegabytes(mb) {
  const text = texts([...'abcdefghijklmnopqrstuvwxyz0123456789 ']);
  return linkOf({ ...BASE, before: { hypothesis: text(Math.round(mb * 750_000)) }, after: { hypothesis: 'h' } }, { level: 0 });
}
