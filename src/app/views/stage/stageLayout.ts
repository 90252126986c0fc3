/**
 * Where the stage's parts sit, in the diagram's own units (an SVG viewBox; the canvas under it uses
 * the same units scaled to device pixels). Two arrangements: left to right on a wide screen, top to
 * bottom on a phone. Pools keep their real page counts: one cell per page, as square as the box allows.
 */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PoolGeometry {
  node: string;
  kind: 'prefill' | 'decode';
  /** The node's box, and its KV pool's grid inside it. */
  box: Rect;
  rect: Rect;
  pageCount: number;
  cols: number;
  rows: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface StageLayout {
  width: number;
  height: number;
  narrow: boolean;
  /** The y of the lane the request card travels along (client → router → prefill). */
  lane: number;
  client: Rect;
  router: Rect;
  pools: PoolGeometry[];
  /** The RDMA link (data) and the control channel ("done"), from prefill to the selected decode node. */
  link: [Point, Point];
  control: [Point, Point];
  /** The way the HTTP status goes back: decode → router → client. */
  statusPath: Point[];
  /** Where the "done" message's contents are spelled out while it travels. */
  callout: Rect;
  tokens: Rect;
  zoom: Rect;
}

export interface NodeShape {
  name: string;
  kind: 'prefill' | 'decode';
  pageCount: number;
}

export function grid(node: NodeShape, box: Rect, rect: Rect): PoolGeometry {
  // Columns so that cells are about square: cols / rows ≈ w / h.
  const cols = Math.max(1, Math.round(Math.sqrt((node.pageCount * rect.w) / rect.h)));
  const rows = Math.max(1, Math.ceil(node.pageCount / cols));
  return { node: node.name, kind: node.kind, box, rect, pageCount: node.pageCount, cols, rows };
}

/** The layout for these nodes; `decodeNode` is the selected request's decode node (the link goes there). */
export function stageLayout(nodes: readonly NodeShape[], narrow: boolean, decodeNode: number): StageLayout {
  const prefills = nodes.filter((n) => n.kind === 'prefill');
  const decodes = nodes.filter((n) => n.kind === 'decode');
  const pools: PoolGeometry[] = [];
  if (!narrow) {
    const width = 1000;
    // A lane along the top for the request card; the nodes below it.
    const client = { x: 8, y: 70, w: 112, h: 96 };
    const router = { x: 150, y: 70, w: 140, h: 96 };
    const pTop = 62;
    const pH = (178 - (prefills.length - 1) * 8) / Math.max(1, prefills.length);
    prefills.forEach((n, i) => {
      const box = { x: 322, y: pTop + i * (pH + 8), w: 226, h: pH };
      pools.push(grid(n, box, { x: box.x + 10, y: box.y + 40, w: box.w - 20, h: box.h - 50 }));
    });
    const dH = (300 - (decodes.length - 1) * 10) / Math.max(1, decodes.length);
    decodes.forEach((n, i) => {
      const box = { x: 690, y: 8 + i * (dH + 10), w: 302, h: dH };
      pools.push(grid(n, box, { x: box.x + 10, y: box.y + 40, w: box.w - 20, h: box.h - 48 }));
    });
    const prefill = pools[0]!.box;
    const decode = (pools.find((p) => p.node === `decode-${decodeNode}`) ?? pools[pools.length - 1]!).box;
    const ly = prefill.y + 60;
    const dy = decode.y + decode.h * 0.4;
    return {
      width,
      height: 470,
      narrow,
      lane: 32,
      client,
      router,
      pools,
      link: [
        { x: prefill.x + prefill.w, y: ly },
        { x: decode.x, y: dy },
      ],
      control: [
        { x: prefill.x + prefill.w, y: ly + 40 },
        { x: decode.x, y: dy + 40 },
      ],
      callout: { x: 452, y: prefill.y + prefill.h + 8, w: 232, h: 44 },
      statusPath: [
        { x: decode.x, y: decode.y + decode.h - 12 },
        { x: router.x + router.w / 2, y: 256 },
        { x: client.x + client.w / 2, y: client.y + client.h - 18 },
      ],
      tokens: { x: 8, y: 306, w: 650, h: 150 },
      zoom: { x: 690, y: 326, w: 302, h: 136 },
    };
  }
  const width = 400;
  const client = { x: 8, y: 46, w: 176, h: 64 };
  const router = { x: 216, y: 46, w: 176, h: 64 };
  // A lane between router and prefill where the request card waits at prefill.
  let y = 168;
  prefills.forEach((n) => {
    const box = { x: 8, y, w: 384, h: 150 };
    pools.push(grid(n, box, { x: box.x + 10, y: box.y + 40, w: box.w - 20, h: box.h - 50 }));
    y += 158;
  });
  const gapTop = y - 8;
  y += 52;
  decodes.forEach((n) => {
    const box = { x: 8, y, w: 384, h: 136 };
    pools.push(grid(n, box, { x: box.x + 10, y: box.y + 40, w: box.w - 20, h: box.h - 48 }));
    y += 146;
  });
  const prefill = pools[0]!.box;
  const decode = (pools.find((p) => p.node === `decode-${decodeNode}`) ?? pools[pools.length - 1]!).box;
  const tokens = { x: 8, y: y + 6, w: 384, h: 170 };
  const zoom = { x: 8, y: tokens.y + tokens.h + 10, w: 384, h: 150 };
  return {
    width,
    height: zoom.y + zoom.h + 8,
    narrow,
    lane: 22,
    client,
    router,
    pools,
    link: [
      { x: 40, y: prefill.y + prefill.h },
      { x: 40, y: decode.y },
    ],
    control: [
      { x: 104, y: prefill.y + prefill.h },
      { x: 104, y: decode.y },
    ],
    callout: { x: 150, y: gapTop + 10, w: 242, h: 44 },
    statusPath: [
      { x: decode.x + decode.w - 4, y: decode.y + 20 },
      { x: 396, y: router.y + router.h + 8 },
      { x: client.x + client.w / 2, y: client.y + client.h },
    ],
    tokens,
    zoom,
  };
}

export function poolOf(layout: StageLayout, node: string): PoolGeometry | undefined {
  return layout.pools.find((p) => p.node === node);
}

/** Centre of a page's cell. */
export function pageCenter(pool: PoolGeometry, page: number): Point {
  const cw = pool.rect.w / pool.cols;
  const ch = pool.rect.h / pool.rows;
  return { x: pool.rect.x + ((page % pool.cols) + 0.5) * cw, y: pool.rect.y + (Math.floor(page / pool.cols) + 0.5) * ch };
}

/** The outline of pages [first, first + count) in row-major order, as SVG polygon points. */
export function rangeOutline(pool: PoolGeometry, first: number, count: number): string {
  const cw = pool.rect.w / pool.cols;
  const ch = pool.rect.h / pool.rows;
  const X = (c: number) => (pool.rect.x + c * cw).toFixed(2);
  const Y = (r: number) => (pool.rect.y + r * ch).toFixed(2);
  const last = first + count - 1;
  const r0 = Math.floor(first / pool.cols);
  const c0 = first % pool.cols;
  const r1 = Math.floor(last / pool.cols);
  const c1 = (last % pool.cols) + 1;
  const pts: [string, string][] =
    r0 === r1
      ? [
          [X(c0), Y(r0)],
          [X(c1), Y(r0)],
          [X(c1), Y(r0 + 1)],
          [X(c0), Y(r0 + 1)],
        ]
      : [
          [X(c0), Y(r0)],
          [X(pool.cols), Y(r0)],
          [X(pool.cols), Y(r1)],
          [X(c1), Y(r1)],
          [X(c1), Y(r1 + 1)],
          [X(0), Y(r1 + 1)],
          [X(0), Y(r0 + 1)],
          [X(c0), Y(r0 + 1)],
        ];
  return pts.map((p) => p.join(',')).join(' ');
}

/** The point a fraction f (0…1) of the way along a polyline. */
export function along(path: readonly Point[], f: number): Point {
  if (path.length === 1 || f <= 0) return path[0]!;
  const seg: number[] = [];
  let total = 0;
  for (let i = 1; i < path.length; i++) {
    const d = Math.hypot(path[i]!.x - path[i - 1]!.x, path[i]!.y - path[i - 1]!.y);
    seg.push(d);
    total += d;
  }
  let left = Math.min(1, f) * total;
  for (let i = 1; i < path.length; i++) {
    const d = seg[i - 1]!;
    if (left <= d || i === path.length - 1) {
      const k = d === 0 ? 1 : Math.min(1, left / d);
      return { x: path[i - 1]!.x + (path[i]!.x - path[i - 1]!.x) * k, y: path[i - 1]!.y + (path[i]!.y - path[i - 1]!.y) * k };
    }
    left -= d;
  }
  return path[path.length - 1]!;
}
