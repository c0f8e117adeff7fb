// How many rows a table holds, estimated from its b-tree without reading
// it: COUNT(*) reads every leaf page (on a 100 MB agent log that is the
// whole file), while a few walks from the root to a leaf read a few dozen
// pages. Knuth's estimator: on each walk, the number of entries at a page
// times the number of pages at its depth as the walk has seen it (the
// product of the fan-outs above it); the mean of the walks is unbiased, and
// a b-tree's fan-outs vary little, so 32 walks land within a few percent.
// The walks are seeded by the root page, so a file always gives the same
// estimate. A tree whose root is a leaf is counted exactly.
//
// SQLite's file format (https://www.sqlite.org/fileformat2.html#b_tree_pages):
// a page's header starts at byte 0 (byte 100 on page 1): its type (2
// interior index, 5 interior table, 10 leaf index, 13 leaf table), the
// number of cells at bytes 3-4, an interior page's right-most child at
// 8-11, then the cell pointers (2 bytes each) after 8 (leaf) or 12
// (interior) bytes; an interior cell starts with its left child's page
// number. Entries: a table's rows are in its leaves only; an index's are
// in every page.

const INTERIOR_INDEX = 2;
const INTERIOR_TABLE = 5;
const LEAF_INDEX = 10;
const LEAF_TABLE = 13;

// One b-tree page: {type, cells, children (interior: page numbers)}.
// `page`: the page's bytes; `pgno` its number.
export function readBtreePage(page, pgno) {
  const at = pgno === 1 ? 100 : 0;
  const type = page[at];
  if (type !== INTERIOR_INDEX && type !== INTERIOR_TABLE && type !== LEAF_INDEX && type !== LEAF_TABLE) {
    throw new Error(`page ${pgno} is not a b-tree page (type ${type})`);
  }
  const dv = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const cells = dv.getUint16(at + 3);
  const leaf = type === LEAF_INDEX || type === LEAF_TABLE;
  const out = { type, cells, leaf, index: type === INTERIOR_INDEX || type === LEAF_INDEX, children: null };
  if (!leaf) {
    const children = new Array(cells + 1);
    for (let i = 0; i < cells; i++) {
      const cell = dv.getUint16(at + 12 + 2 * i);
      children[i] = dv.getUint32(cell);
    }
    children[cells] = dv.getUint32(at + 8);
    out.children = children;
  }
  return out;
}

// A small seeded generator (mulberry32): the same walks for the same tree.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// {rows, exact, pagesRead} for the b-tree at `root`; `readPage(pgno)` gives
// a page's bytes. `walks` walks, each at most 64 levels deep (a real tree
// is under 10; a loop in a damaged file ends there).
export function estimateRows(readPage, root, { walks = 32 } = {}) {
  const seen = new Map();
  const page = (pgno) => {
    let p = seen.get(pgno);
    if (!p) {
      p = readBtreePage(readPage(pgno), pgno);
      seen.set(pgno, p);
    }
    return p;
  };
  const top = page(root);
  if (top.leaf) return { rows: top.cells, exact: true, pagesRead: seen.size };
  const next = random(root * 2654435761);
  let total = 0;
  for (let w = 0; w < walks; w++) {
    let p = top;
    let width = 1;
    let entries = 0;
    for (let depth = 0; depth < 64; depth++) {
      if (p.leaf) {
        entries += width * p.cells;
        break;
      }
      if (p.index) entries += width * p.cells;
      width *= p.children.length;
      p = page(p.children[Math.floor(next() * p.children.length)]);
    }
    total += entries;
  }
  return { rows: Math.round(total / walks), exact: false, pagesRead: seen.size };
}
