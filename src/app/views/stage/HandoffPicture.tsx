/**
 * One request's handoff as a picture at one position of the handoff (a step and a share of it): the
 * flow (client → router → prefill → RDMA link → decode → HTTP status back), each node's pool as a
 * small context map at real scale, the microscope on the decode block table (slot by slot, the words
 * its slots still hold, each tinted by its writer) and the response, each token rising out of the
 * slot it drew on. Drawn in CSS pixels of its own width, so its labels render at the size written.
 * A pure function of its props: the stage computes them from the handoff clock or the incident's.
 */
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { RequestDetail, RunSummary, Snapshot } from '../../run/hooks.ts';
import { useT } from '../../i18n/i18n.ts';
import { formatNumber, type Lang } from '../../i18n/format.ts';
import { tenantCss, tenantInk } from '../../ui/palette.ts';
import { ADVERTISED_CONTEXT_TOKENS } from '../../../engine/config.ts';
import type { StageFrame } from '../../moment/moment.ts';
import { drawStagePools } from './stagePools.ts';
import { pageCenter, type PoolGeometry } from './stageLayout.ts';
import { chipLayout, contextPool, flowLayout, microLayout, monoWidth, wordWidth, type FlowLayout, type MicroLayout } from './handoffLayout.ts';
import { ease } from '../../moment/moment.ts';
import { FIRST_PAGES, drawsByPage, microPageLabel, microscopeRowsAt, picturePlan, sampledSlot, type MicroPageRow, type MicroRow } from './microscope.ts';
import { drawMicroscope, MICRO_PAD, type MicroPaint, type MicroPaintRow } from './microscopeDraw.ts';
import { attentionLine } from '../shared/attentionText.ts';
import { useApp } from '../../state/store.ts';

export interface HandoffPictureProps {
  run: RunSummary;
  req: number;
  detail: RequestDetail;
  frame: StageFrame;
  snapshot: Snapshot | null;
  width: number;
  dpr: number;
  lang: Lang;
  /** A response token hovered or focused elsewhere: its page ringed here. */
  linkedPage: { node: string; page: number; slot?: number } | null;
  row: 'main' | 'fix';
  sentence: string;
  /**
   * The screen layout and the video: the picture drawn `zoom` times larger (its labels at 20 px and
   * more) in a window `viewHeight` CSS px tall, the camera on the part the step is about.
   */
  screen?: { zoom: number; viewHeight: number } | null;
  /** The step before the one on (the screen's camera cuts to a step's subject: it no longer pans from this one's). */
  previousStep?: string | null;
  /**
   * The answer right under the flow, the microscope after it (the first screen: the whole handoff,
   * from the client to the answer it gets, in view at 1280×720); else the microscope comes first.
   */
  answerFirst?: boolean;
}

/** Steps whose subject is the flow, the block table's first rows, or the scan and the answer. */
const CAMERA_GROUP: Record<string, number> = { reserve: 1, transfer: 1, 'prefill-free': 1, done: 1, 'check-failed': 1, scan: 2, stream: 2, free: 2, reuse: 2 };

/**
 * The node each step is done by (the request's side for the arrival and the answer): its ground fills
 * with the step's progress, so every step moves where its work happens, and a still frame shows how
 * far it has gone. Steps whose picture moves on its own (the pages on the link, the token stream) have none.
 */
const WORKER: Partial<Record<string, 'client' | 'router' | 'prefill' | 'decode'>> = {
  arrive: 'client',
  tokenizer: 'router',
  reject: 'router',
  abort: 'router',
  route: 'router',
  'decode-wait': 'decode',
  reserve: 'decode',
  'prefill-wait': 'prefill',
  'prefill-alloc': 'prefill',
  compute: 'prefill',
  'prefill-free': 'prefill',
  done: 'decode',
  'check-failed': 'decode',
  scan: 'decode',
  response: 'client',
  free: 'decode',
  reuse: 'decode',
};

/** The tenant index of a writer request (−1: nobody's, zeros). */
function tenantOfRequest(run: RunSummary, writer: number): number {
  return writer >= 0 && writer < run.requests.count ? run.requests.tenant[writer]! : -1;
}

const lerp = (a: number, b: number, k: number) => a + (b - a) * k;

/** Band counts by writer, per run, node, request and band, with the snapshot they were counted for. */
const bandCache = new Map<string, { seq: number; counts: [number, number][] }>();

/** The part of a row's words shown: from `start`, as many as fit in `width` (monospaced, one space apart). */
function wordWindow(words: readonly string[], start: number, width: number): { from: number; to: number } {
  let w = monoWidth(start > 0 ? '\u2026 ' : '') + monoWidth(' \u2026');
  let to = start;
  while (to < words.length) {
    const next = monoWidth(`${words[to]!} `);
    if (w + next > width) break;
    w += next;
    to++;
  }
  return { from: start, to };
}

interface FlowProps {
  f: FlowLayout;
  tenantName: string;
}

/** What does not move: boxes, titles, wires. */
const FlowStatic = memo(function FlowStatic({ f, tenantName }: FlowProps) {
  const t = useT();
  const box = (r: { x: number; y: number; w: number; h: number }) => <rect x={r.x + 0.5} y={r.y + 0.5} width={r.w - 1} height={r.h - 1} rx={6} className="hp-box" />;
  return (
    <g>
      {box(f.client)}
      <text x={f.client.x + 8} y={f.client.y + 18} className="hp-title">{t('stageClient')}</text>
      <text x={f.client.x + 8} y={f.client.y + 35} className="hp-sub">{tenantName}</text>
      {box(f.router)}
      <text x={f.router.x + 8} y={f.router.y + 18} className="hp-title">{t('stageRouter')}</text>
      {box(f.prefill)}
      <text x={f.prefill.x + 8} y={f.prefill.y + 18} className="hp-title">{t('hpPrefill')}</text>
      {box(f.decode)}
      <text x={f.decode.x + 8} y={f.decode.y + 18} className="hp-title">{t('hpDecode')}</text>
      {f.wires.map(([x1, y1, x2, y2], i) => (
        <line key={i} x1={x1} y1={y1} x2={x2} y2={y2} className="hp-wire" />
      ))}
      <line x1={f.link[0]} y1={f.link[2]} x2={f.link[1]} y2={f.link[2]} className="hp-link" />
      {/* Above the travelling page (22 px, centred on the link), not under it */}
      <text x={(f.link[0] + f.link[1]) / 2} y={f.link[2] - 15} textAnchor="middle" className="hp-sub">{t('stageRdma')}</text>
      <line x1={f.control[0]} y1={f.control[2]} x2={f.control[1]} y2={f.control[2]} className="hp-control" />
    </g>
  );
});

/**
 * Where the screen's camera window may begin or end (picture units, top to bottom): between the parts
 * of the picture, never through one: the flow's top, under the request's card, under the flow, above
 * each of the microscope's rows and under the last, above and under the answer's heading, above each
 * row of chips, under them and under each line of attention, the picture's foot.
 */
function cutLines(f: FlowLayout, ml: MicroLayout, micro: boolean, responseTop: number, cl: { chips: { y: number }[]; bottom: number }, attention: number, height: number): number[] {
  const lines = [0, f.decode.y - 8, f.height + 2];
  if (micro) lines.push(...ml.rowY.map((y) => y - 1), ml.bottom + 2);
  lines.push(responseTop + 22);
  for (const y of new Set(cl.chips.map((c) => c.y))) lines.push(y - 17);
  lines.push(cl.bottom - 2);
  for (let k = 0; k < attention; k++) lines.push(cl.bottom + 19 + k * 17);
  lines.push(height);
  return lines.filter((y) => y >= 0 && y <= height).sort((x, y) => x - y);
}

interface SlotCellsProps {
  rows: MicroRow[];
  /** The strip's left edge and width; `top` is the first row's cells' top. */
  x: number;
  width: number;
  top: number;
  rowY: readonly number[];
  pageSize: number;
  words: readonly string[];
  run: RunSummary;
  /** While a question waits, every writer but this tenant is held (no name, no word); null: none held. */
  heldBut: number | null;
  lang: Lang;
  testId: string | undefined;
}

/**
 * The microscope's slots as cells, each with its word and writer in a title (the canvas draws them).
 * Hundreds of cells whose words change only when a page row does, while the stage around them
 * re-renders every frame it plays: re-rendered only when a row's slots change (sameSlotCells).
 */
const SlotCells = memo(function SlotCells({ rows, x, width, top, rowY, pageSize, words, run, heldBut, lang, testId }: SlotCellsProps) {
  const t = useT();
  // While a question waits, another customer's words are held as their names are (a slot's word names
  // its writer: "canary-acme"); a writer of no known tenant is no one's to name either.
  const held = (w: number) => {
    const tn = tenantOfRequest(run, w);
    return w >= 0 && (tn < 0 || (heldBut !== null && tn !== heldBut));
  };
  const writerName = (w: number) => (w < 0 ? t('hpZeros') : held(w) ? '?' : (run.tenants[tenantOfRequest(run, w)] ?? '?'));
  return (
    <g className="hp-slot-cells" data-testid={testId}>
      {rows.map((r, i) =>
        r.kind === 'page'
          ? Array.from({ length: r.writers.length }, (_, k) => (
              <rect key={`${i}:${k}`} x={x + (k * width) / pageSize} y={rowY[i]! + top - rowY[0]!} width={width / pageSize} height={12} className="hp-slot-hit" data-slot={k}>
                <title>{t('hpSlotTip', { slot: formatNumber(k, lang), word: held(r.writers[k]!) ? '?' : (words[r.tokens[k]!] ?? String(r.tokens[k])), writer: writerName(r.writers[k]!) })}</title>
              </rect>
            ))
          : null,
      )}
    </g>
  );
}, sameSlotCells);

/** Whether two renders of the slot cells draw the same: the same geometry and, row by row, the same slots. */
function sameSlotCells(a: SlotCellsProps, b: SlotCellsProps): boolean {
  if (a.x !== b.x || a.width !== b.width || a.top !== b.top || a.rowY !== b.rowY || a.pageSize !== b.pageSize || a.words !== b.words || a.run !== b.run || a.heldBut !== b.heldBut || a.lang !== b.lang || a.testId !== b.testId) return false;
  if (a.rows.length !== b.rows.length) return false;
  for (let i = 0; i < a.rows.length; i++) {
    const p = a.rows[i]!;
    const q = b.rows[i]!;
    if (p.kind !== q.kind) return false;
    if (p.kind !== 'page' || q.kind !== 'page') continue;
    if (p.writers.length !== q.writers.length) return false;
    for (let k = 0; k < p.writers.length; k++) if (p.writers[k] !== q.writers[k] || p.tokens[k] !== q.tokens[k]) return false;
  }
  return true;
}

export function HandoffPicture({ run, req, detail, frame, snapshot, width, dpr, lang, linkedPage, row, sentence, screen = null, previousStep = null, answerFirst = false }: HandoffPictureProps) {
  const t = useT();
  const fmt = (n: number) => formatNumber(n, lang);
  const zoom = screen?.zoom ?? 1;
  const f = useMemo(() => flowLayout(width / zoom), [width, zoom]);
  // A node's pool: on a phone its page count alone, which is what fits beside the box's title (the
  // microscope's heading names the decode node).
  const poolLine = (node: string, pages: number) => (f.narrow ? t('stagePoolPages', { pages: fmt(pages) }) : t('hpPool', { node, pages: fmt(pages) }));
  const tenant = run.tenants.indexOf(detail.response.tenant);
  // A walkthrough question waits: whose KV the request's pages hold would answer it (chapter 6's),
  // so the pools and the microscope show another customer's KV as no one's: no name, no colour, no words.
  const writersHeld = useApp((s) => s.questionOpen);
  const heldTenant = (tn: number) => (writersHeld && tn >= 0 && tn !== tenant ? -1 : tn);
  const words = detail.words;
  const tokens = detail.response.tokens;
  const prov = detail.response.provenance;
  const sample = detail.response.slots ?? null;
  const route = detail.events.find((e) => e.type === 'route');
  const decodeIndex = route && route.type === 'route' ? route.decode : 0;
  const prefillIndex = route && route.type === 'route' ? route.prefill : 0;
  const decodeName = `decode-${decodeIndex}`;
  const prefillName = `prefill-${prefillIndex}`;
  const decodeNode = snapshot?.nodes.find((n) => n.name === decodeName);
  const prefillNode = snapshot?.nodes.find((n) => n.name === prefillName);
  const reserve = detail.events.find((e) => e.type === 'decode-reserve');
  const tableLength = reserve && reserve.type === 'decode-reserve' ? reserve.pageCount : 0;

  // Context maps: the two nodes' pools, small, inside their boxes.
  const pools = useMemo<PoolGeometry[]>(() => {
    const out: PoolGeometry[] = [];
    if (prefillNode) out.push(contextPool({ name: prefillName, kind: 'prefill', pageCount: prefillNode.pageCount }, f.prefill));
    if (decodeNode) out.push(contextPool({ name: decodeName, kind: 'decode', pageCount: decodeNode.pageCount }, f.decode));
    return out;
  }, [f, prefillName, decodeName, prefillNode?.pageCount, decodeNode?.pageCount]);

  const draws = useMemo(() => drawsByPage(prov), [prov]);
  // A response token hovered or focused: the microscope shows page 0 and the page it drew on, near
  // the top, so the token, its slot and its page on the context map are on one screen.
  const linkedSampled = !!(sample && linkedPage && linkedPage.node === decodeName && sample.pages.indexOf(linkedPage.page) >= sample.before.count);
  // The microscope's rows: which pages and bands it shows depends on the request and the layout only
  // (planned once); their states, on the frame.
  const showMicro = !!sample && tableLength > 0 && !frame.refusedAt;
  const mustShow = linkedSampled ? linkedPage!.page : null;
  const onScreen = !!screen;
  const plan = useMemo(() => (sample && tableLength > 0 ? picturePlan({ sample, tableLength, draws, mustShow, screen: onScreen }) : []), [sample, tableLength, draws, mustShow, onScreen]);
  const micro: MicroRow[] = showMicro && sample ? microscopeRowsAt(plan, { sample, frame, req, ownerOf: (p) => (decodeNode ? decodeNode.owner[p] ?? -1 : -1) }) : [];
  const microKinds = useMemo(() => (showMicro ? plan.map((r) => r.kind) : []), [plan, showMicro]);
  // The answer's chips and, under them, where the focal token's attention went (below): their height
  // places the microscope when the answer comes first.
  const chipWords = useMemo(() => tokens.map((id) => words[id] ?? String(id)), [tokens, words]);
  const attentionShown = useMemo(() => prov.some((p) => p.attention), [prov]);
  const ATTENTION_LINES = 4;
  const answerHeight = useMemo(() => chipLayout(chipWords, f.width, 0).bottom + 6 + (attentionShown ? 20 + ATTENTION_LINES * 17 : 0), [chipWords, f.width, attentionShown]);
  const microTop = answerFirst ? f.height + 8 + answerHeight + 4 : f.height + 8;
  const ml = useMemo(() => microLayout(f.width, microTop, microKinds), [f.width, microTop, microKinds]);
  // Where a page row's slot strip lies (x, width, and y relative to the first row's top).
  const stripX = f.narrow ? 6 : ml.wordsX;
  const stripW = f.narrow ? f.width - 10 : ml.wordsW;
  const stripY = (ml.rowY[0] ?? 0) + (f.narrow ? 40 : 21);
  // Per page row and side of the transfer (the words before it, or after): its words, the window of
  // them shown and its slots' runs of one tenant. A function of the request and the layout: computed
  // once, on the first frame that shows it.
  const drewStart = useMemo(() => {
    const m = new Map<number, number>();
    if (sample) for (const p of prov) m.set(p.page, Math.min(m.get(p.page) ?? sample.pageSize, p.slot % sample.pageSize));
    return m;
  }, [prov, sample]);
  const rowText = useMemo(() => new Map<string, { words: string[]; from: number; to: number; runs: number[] }>(), [sample, words, drewStart, ml.wordsW, run]);
  const rowTextOf = (r: MicroPageRow) => {
    const after = r.written >= 0.5 || r.sample >= sample!.before.count;
    const key = `${r.sample}:${after ? 1 : 0}:${r.position < FIRST_PAGES ? 0 : 1}`;
    let got = rowText.get(key);
    if (!got) {
      const rowWords = Array.from(r.tokens, (id) => words[id] ?? String(id));
      // Drew-on rows start a few slots before the first slot the response drew on there.
      const start = r.position < FIRST_PAGES ? 0 : Math.max(0, Math.min(drewStart.get(r.page) ?? sample!.pageSize, sample!.pageSize) - 3);
      const win = wordWindow(rowWords, start, ml.wordsW);
      const runs: number[] = [];
      const n = r.writers.length;
      for (let i = 0; i < n; ) {
        const tn = tenantOfRequest(run, r.writers[i]!);
        let j = i + 1;
        while (j < n && tenantOfRequest(run, r.writers[j]!) === tn) j++;
        runs.push(i, j, tn);
        i = j;
      }
      got = { words: rowWords, from: win.from, to: win.to, runs };
      rowText.set(key, got);
    }
    return got;
  };
  const responseTop = answerFirst ? f.height + 8 : micro.length > 0 ? ml.bottom + 4 : microTop;
  const cl = useMemo(() => chipLayout(chipWords, f.width, responseTop), [chipWords, f.width, responseTop]);
  // Under the transformer, where the focal token's attention went (the token rising, else the last
  // one out), one line per writer: the shares in words, under the answer.
  const focal = frame.activeToken ?? (frame.tokensShown > 0 ? Math.min(frame.tokensShown, tokens.length) - 1 : null);
  const focalAttention = attentionShown && focal !== null ? prov[focal]?.attention : undefined;
  const attentionLines = focalAttention ? attentionLine(t, lang, focalAttention, detail.response.tenant).split(' · ') : [];
  const height = answerFirst ? (micro.length > 0 ? ml.bottom : responseTop + answerHeight) : cl.bottom + 6 + (attentionShown ? 20 + ATTENTION_LINES * 17 : 0);
  // The camera (screen layout): the flow, then the block table's first rows, then the scan and the
  // answer, moving over the first part of the step that changes the subject. A function of the frame.
  const cameraOf = (group: number) => (group === 0 ? 0 : group === 1 ? Math.max(0, f.decode.y - 8) : Math.max(0, f.height + 2));
  const view = screen ? screen.viewHeight / zoom : height;
  const group = frame.stepIndex < 0 ? 0 : (CAMERA_GROUP[frame.step] ?? 0);
  // On a projector the camera cuts from one subject to the next, and its window's edges lie between
  // parts (the flow, the microscope's heading, each of its rows, the answer's heading, each row of
  // chips): a pan, or an edge anywhere else, would show labels sliced at the picture's top or foot.
  const cuts = screen ? cutLines(f, ml, micro.length > 0, responseTop, cl, attentionShown ? ATTENTION_LINES : 0, height) : [];
  const cameraY = screen ? cuts.filter((y) => y <= Math.min(cameraOf(group), Math.max(0, height - view))).reduce((a, b) => Math.max(a, b), 0) : 0;
  const shownHeight = screen ? Math.max(0, cuts.filter((y) => y <= cameraY + view).reduce((a, b) => Math.max(a, b), cameraY) - cameraY) : height;

  // Each of the decode pool's pages' position in the block table (−1: not in it).
  const tablePos = useMemo(() => {
    if (!reserve || reserve.type !== 'decode-reserve') return null;
    let n = 0;
    for (const [first, count] of reserve.pages) n = Math.max(n, first + count);
    const out = new Int32Array(n).fill(-1);
    let pos = 0;
    for (const [first, count] of reserve.pages) for (let k = 0; k < count; k++) out[first + k] = pos++;
    return out;
  }, [reserve]);
  // Band counts by writer: the pages' last writers at the instant shown. Kept from one snapshot to
  // the next while none of the pages that changed between them lies in the band (the snapshot's
  // change list), so a frame recounts a band only when its pages' writers can differ.
  const bandCounts = (from: number, to: number): [number, number][] => {
    if (!decodeNode || !snapshot || !reserve || reserve.type !== 'decode-reserve') return [];
    const key = `${snapshot.runKey}|${decodeName}|${req}|${from}|${to}`;
    const ch = decodeNode.changes;
    const known = bandCache.get(key);
    if (known && ch) {
      if (known.seq === ch.seq) return known.counts;
      if (known.seq === ch.since && ch.pages && tablePos) {
        let touched = false;
        for (let i = 0; i < ch.pages.length && !touched; i++) {
          const at = ch.pages[i]! < tablePos.length ? tablePos[ch.pages[i]!]! : -1;
          touched = at >= from && at < to;
        }
        if (!touched) {
          known.seq = ch.seq;
          return known.counts;
        }
      }
    }
    const counts = new Map<number, number>();
    let pos = 0;
    for (const [first, count] of reserve.pages) {
      const a = Math.max(from, pos);
      const b = Math.min(to, pos + count);
      for (let k = a; k < b; k++) {
        const w = decodeNode.writerTenant[first + (k - pos)]!;
        counts.set(w, (counts.get(w) ?? 0) + 1);
      }
      pos += count;
      if (pos >= to) break;
    }
    const out = [...counts].sort((x, y) => y[1] - x[1]);
    if (bandCache.size > 64) bandCache.clear();
    if (ch) bandCache.set(key, { seq: ch.seq, counts: out });
    return out;
  };

  const canvas = useRef<HTMLCanvasElement>(null);
  useLayoutEffect(() => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx || !snapshot) return;
    const w = Math.max(1, Math.round(f.width * dpr * zoom));
    const h = Math.max(1, Math.round(f.height * dpr * zoom));
    if (c.width !== w || c.height !== h) {
      c.width = w;
      c.height = h;
    }
    drawStagePools(ctx, { width: f.width, height: f.height, pools }, snapshot, { req, requesterTenant: tenant, frame, scanTrail: Math.max(1, Math.ceil(frame.reserved.length / 10)), writersHeld }, dpr * zoom);
    c.dataset.drawnT = String(frame.t);
  });

  // The node at work and the ground it fills: its box, and on a laptop its whole column (the lane the
  // request card travels above it, the box, the label rows under it).
  const workerBox = frame.stepIndex >= 0 ? WORKER[frame.step] : undefined;
  const worker = workerBox ? (f.narrow ? f[workerBox] : { ...f[workerBox], y: 0, h: f.height - 4 }) : null;

  // The request card along the lane: client → router → prefill; its token count rolls N → 1.
  const laneX = { client: f.client.x + f.client.w / 2, router: f.router.x + f.router.w / 2, prefill: f.prefill.x + f.prefill.w / 2 };
  const cardX = (() => {
    if (frame.step === 'idle' || frame.promptAt === 'gone') return null;
    if (frame.step === 'arrive') return lerp(laneX.client, laneX.router, ease(frame.progress));
    if (frame.step === 'route') return lerp(laneX.router, laneX.prefill, ease(frame.progress));
    if (frame.promptAt === 'router') return laneX.router;
    if (frame.promptAt === 'prefill') return laneX.prefill;
    return laneX.client;
  })();
  const barMax = f.width * 0.2;
  const barW = Math.max(2, (barMax * Math.min(frame.inputTokens, ADVERTISED_CONTEXT_TOKENS)) / ADVERTISED_CONTEXT_TOKENS);
  const placeholder = frame.inputTokens === 1 && frame.promptTokens > 1;
  // The card is as wide as its words or its bar (on a phone the words are wider), and stays in the picture.
  const cardText = placeholder ? t('stagePlaceholderToken') : t('stagePromptTokens', { tokens: fmt(frame.inputTokens) });
  const cardInner = Math.max(barMax, wordWidth(cardText) * 1.1);
  const cardLeft = cardX === null ? 0 : Math.max(0, Math.min(f.width - cardInner - 16, cardX - cardInner / 2 - 8));

  // What travels on the link: the pages prefill sends (one square each, up to eight drawn).
  const beamX = lerp(f.link[0], f.link[1] - 22, ease(frame.beamProgress));
  const beamDrawn = Math.min(8, frame.beamPages);
  const pagesLeft = tableLength - frame.beamPages;
  const onePageTransfer = frame.computedTokens === 1 && frame.promptTokens > 1;
  // The done message: a pill sized to its words, travelling the control channel, kept inside the picture.
  const msgText = frame.message ? t('hpDone', { room: String(frame.message.room), status: frame.message.status }) : '';
  const msgW = wordWidth(msgText) + 16;
  const msgX = frame.message ? lerp(f.control[0], f.control[1] - 4, ease(frame.message.progress)) : 0;
  const msgLeft = Math.max(0, Math.min(f.width - msgW, msgX - msgW / 2));
  const statusShown = frame.status !== null || frame.step === 'response' || frame.step === 'reject';
  const statusFromX = frame.step === 'reject' ? f.router.x + f.router.w / 2 : f.decode.x + 20;
  const statusX = lerp(statusFromX, f.client.x + f.client.w / 2, ease(frame.statusProgress));
  const httpStatus = frame.step === 'reject' ? 400 : detail.response.status;

  // The token in flight: it rises out of the slot it drew on and flies to its place in the response.
  const active = frame.activeToken;
  const tokenPhase = frame.step === 'stream' && tokens.length > 0 ? frame.progress * tokens.length - Math.floor(frame.progress * tokens.length) : 1;
  const slotPoint = (page: number, slot: number): { x: number; y: number } | null => {
    if (!sample) return null;
    const s = sampledSlot(sample, page, slot);
    if (!s) return null;
    const r = micro.findIndex((x) => x.kind === 'page' && x.sample === s.k);
    if (r < 0) return null;
    return { x: stripX + ((s.slot + 0.5) * stripW) / sample.pageSize, y: ml.rowY[r]! + (stripY - ml.rowY[0]!) + 8 };
  };
  const bandPoint = (page: number): { x: number; y: number } | null => {
    if (!reserve || reserve.type !== 'decode-reserve') return null;
    let pos = 0;
    let at = -1;
    for (const [first, count] of reserve.pages) {
      if (page >= first && page < first + count) {
        at = pos + page - first;
        break;
      }
      pos += count;
    }
    const r = micro.findIndex((x) => x.kind === 'band' && at >= x.from && at < x.to);
    return r < 0 ? null : { x: ml.wordsX + ml.wordsW / 2, y: ml.rowY[r]! + 16 };
  };
  const activeProv = active !== null ? prov[active] : undefined;
  const activeFrom = activeProv ? (slotPoint(activeProv.page, activeProv.slot) ?? bandPoint(activeProv.page)) : null;
  const activeChip = active !== null ? cl.chips[active] : undefined;
  const flight = ease(Math.min(1, tokenPhase / 0.6));

  // Where the landing page goes: the first row of the microscope (page 0 of the table).
  const firstRow = micro.findIndex((x) => x.kind === 'page');
  const landAt = firstRow >= 0 ? { x: stripX + 11, y: ml.rowY[firstRow]! + 10 } : { x: f.decode.x + 20, y: f.decode.y + f.decode.h - 20 };
  const freeStep = detail.events.find((e) => e.type === 'decode-free');
  const reuseFrom = freeStep ? freeStep.t : null;
  const activeRow = activeProv ? micro.findIndex((x) => x.kind === 'page' && x.page === activeProv.page) : -1;
  const linkedRow = linkedPage && linkedPage.node === decodeName ? micro.findIndex((x) => x.kind === 'page' && x.page === linkedPage.page) : -1;
  const decodePool = pools.find((p) => p.node === decodeName);
  const hereRings = decodePool && frame.reserved.length > 0 ? micro.filter((x): x is MicroPageRow => x.kind === 'page').map((x) => pageCenter(decodePool, x.page)) : [];
  const linkedCenter = decodePool && linkedPage && linkedPage.node === decodeName && linkedPage.page < decodePool.pageCount ? pageCenter(decodePool, linkedPage.page) : null;

  const claimer = (holder: number) => ({ tenant: run.tenants[tenantOfRequest(run, holder)] ?? '?', request: run.requests.ids[holder] ?? '?' });
  // Who holds the freed block table's pages again, at the instant shown: the engine's owner of each page
  // (the first later holder met in block-table order is named).
  const claimedAgain = (() => {
    if (!frame.freed || !decodeNode || !reserve || reserve.type !== 'decode-reserve') return null;
    let by = -1;
    let n = 0;
    for (const [first, count] of reserve.pages)
      for (let k = 0; k < count; k++) {
        const o = decodeNode.owner[first + k]!;
        if (o >= 0 && o !== req) {
          n++;
          if (by < 0) by = o;
        }
      }
    return by >= 0 ? { by, pages: n } : null;
  })();
  const tenantName = (w: number) => (w < 0 ? t('hpZeros') : heldTenant(tenantOfRequest(run, w)) < 0 ? '?' : (run.tenants[tenantOfRequest(run, w)] ?? '?'));

  // The microscope's rows as one canvas drawing, and the same in words for assistive technology.
  const paintRows: MicroPaintRow[] = [];
  const spoken: { key: string; text: string; words?: string; page?: number; state?: string }[] = [];
  micro.forEach((r, i) => {
    const y = ml.rowY[i]!;
    if (r.kind === 'band') {
      const counts = bandCounts(r.from, r.to);
      const total = r.to - r.from;
      const label = t('hpBand', { pages: fmt(r.litPages > 0 ? r.litPages : total) });
      // The first three owners by name (held back while a question waits); how many more, said (never a tenant left out unsaid).
      const countsText = [...counts.slice(0, 3).map(([w, n]) => `${w < 0 ? t('hpZeros') : heldTenant(w) < 0 ? '?' : run.tenants[w]} ${fmt(n)}`), ...(counts.length > 3 ? [t('hpBandFolded', { n: fmt(counts.length - 3) })] : [])].join(' \u00b7 ');
      paintRows.push({ kind: 'band', y, dim: r.litPages <= 0, label, counts: countsText, bars: counts.flatMap(([w, n]) => [heldTenant(w), n]), total });
      spoken.push({ key: `b${i}`, text: `${label}: ${countsText}` });
      return;
    }
    const kept = rowTextOf(r);
    const hidden = writersHeld && heldTenant(tenantOfRequest(run, r.writer)) < 0;
    // Held: the words another customer's KV holds are dots, its slots no one's.
    const text = writersHeld ? { ...kept, words: hidden ? kept.words.map(() => '\u00b7') : kept.words, runs: kept.runs.map((x, k) => (k % 3 === 2 ? heldTenant(x) : x)) } : kept;
    const writerT = heldTenant(tenantOfRequest(run, r.writer));
    const activeHere = activeProv && activeProv.page === r.page ? activeProv.slot % sample!.pageSize : linkedRow === i && linkedPage?.slot !== undefined ? linkedPage.slot % sample!.pageSize : -1;
    const chipTenant = writerT;
    const label = microPageLabel(r, t, lang);
    const title = label.block;
    // The placeholder's page: its one slot (or few) written for the request, the rest still the
    // previous owner's, copied with it. Its chip names whose words the row shows (their colour), and
    // the row says in words what happened to each part.
    const placeholderNow = r.placeholderPage && r.state !== 'freed' && r.state !== 'claimed';
    let own = 0;
    let zeros = 0;
    if (placeholderNow) {
      for (let k = 0; k < r.writers.length; k++) {
        if (r.writers[k] === req) own++;
        else if (r.writers[k] === -1) zeros++;
      }
    }
    const rest = r.writers.length - own;
    // A page cleared on free holds zeros beside the placeholder's slot, not an earlier customer's words.
    const wiped = rest > 0 && zeros === rest;
    // A page claimed again after the free names its new holder, from the engine's owner of the page.
    const stateText = r.state === 'claimed' && r.claimedBy >= 0 ? t('hpStateClaimedBy', claimer(r.claimedBy)) : t(`hpState.${r.state}`);
    const sub = `${label.page} \u00b7 ${placeholderNow ? t(wiped ? 'hpStatePlaceholderZeros' : 'hpStatePlaceholderSlots', { own: fmt(own), rest: fmt(rest) }) : stateText}`;
    const chip = tenantName(r.writer);
    const said = !placeholderNow ? '' : wiped ? ` ${t('hpPlaceholderZerosSaid', { own: fmt(own), slots: fmt(r.writers.length), tenant: detail.response.tenant, rest: fmt(rest) })}` : ` ${t('hpPlaceholderSaid', { own: fmt(own), slots: fmt(r.writers.length), tenant: detail.response.tenant, rest: fmt(rest), previous: tenantName(r.writer) })}`;
    const shown = text.words.slice(text.from, text.to);
    paintRows.push({ kind: 'page', y, state: r.state, scanned: r.scanned, linked: linkedRow === i, title, sub, chipTenant, chip, words: shown, from: text.from, lead: text.from > 0, trail: text.to < text.words.length, active: activeHere, placeholder: r.placeholderPage, runs: text.runs, slots: r.writers.length });
    spoken.push({ key: `p${r.sample}`, text: `${title} \u00b7 ${sub}${said} \u00b7 ${chip}: `, words: `${text.from > 0 ? '\u2026 ' : ''}${shown.join(' ')}${text.to < text.words.length ? ' \u2026' : ''}`, page: r.page, state: r.state });
  });
  const microPaint: MicroPaint | null = micro.length > 0 ? { width: f.width, top: microTop, bottom: ml.bottom, narrow: f.narrow, labelW: ml.labelW, chipW: ml.chipW, wordsX: ml.wordsX, wordsW: ml.wordsW, pageRowH: ml.pageRowH, rows: paintRows } : null;
  const microCanvas = useRef<HTMLCanvasElement>(null);
  // Canvas text takes the page's fonts as they are when drawn: drawn again once they have loaded,
  // and when the colour scheme changes (the theme's tokens with it).
  const [, setRedraw] = useState(0);
  useEffect(() => {
    let live = true;
    const again = () => live && setRedraw((n) => n + 1);
    void document.fonts?.ready.then(again);
    const scheme = window.matchMedia?.('(prefers-color-scheme: dark)');
    scheme?.addEventListener('change', again);
    return () => {
      live = false;
      scheme?.removeEventListener('change', again);
    };
  }, []);
  useLayoutEffect(() => {
    const c = microCanvas.current;
    if (!c || !microPaint) return;
    drawMicroscope(c, microPaint, dpr * zoom);
    c.dataset.drawnT = String(frame.t);
  });

  // What the row draws: on the screen layout, inside the camera's window.
  const drawn = (
    <>
      <canvas ref={canvas} className="stage-canvas" aria-hidden="true" data-testid={`stage-canvas-${row}`} style={{ width: f.width * zoom, height: f.height * zoom, top: -cameraY * zoom }} />
      {microPaint ? (
        <div className="hp-micro" data-testid={row === 'main' ? 'stage-microscope' : undefined} style={{ top: (microTop - cameraY) * zoom, width: f.width * zoom, height: (ml.bottom - microTop) * zoom }}>
          <canvas ref={microCanvas} className="hp-micro-canvas" aria-hidden="true" style={{ left: -MICRO_PAD * zoom, top: -MICRO_PAD * zoom, width: (f.width + 2 * MICRO_PAD) * zoom, height: (ml.bottom - microTop + 2 * MICRO_PAD) * zoom }} />
          <ul className="visually-hidden" aria-label={t('hpMicroHead')}>
            {spoken.map((x) => (
              <li key={x.key} data-page={x.page} data-state={x.state}>
                {x.text}
                {x.words !== undefined ? <span lang="en">{x.words}</span> : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <svg width={f.width * zoom} height={height * zoom} viewBox={`0 0 ${f.width} ${height}`} style={{ top: -cameraY * zoom }} className="stage-svg hp-svg" data-evidence="model" role="img" aria-label={t('stageFigureLabel', { sentence })}>
        {/* The node at work: its ground (the box and the labels under it) fills as the step goes */}
        {worker ? (
          <g className="hp-work" data-testid={row === 'main' ? 'stage-work' : undefined} data-worker={WORKER[frame.step]}>
            <rect x={worker.x} y={worker.y} width={worker.w * frame.progress} height={worker.h} className="hp-work-fill" />
            <line x1={worker.x + worker.w * frame.progress} x2={worker.x + worker.w * frame.progress} y1={worker.y} y2={worker.y + worker.h} className="hp-work-edge" />
          </g>
        ) : null}
        <FlowStatic f={f} tenantName={detail.response.tenant} />
        {/* Router: the tokenizer's check, the scheduler's abort, a refusal */}
        {frame.refusedAt ? (
          <text x={f.router.x + 8} y={f.router.y + 52} className="hp-sub hp-bad" data-testid={row === 'main' ? undefined : 'stage-refused'}>
            {'\u2716 '}
            {t(frame.refusedAt === 'tokenizer' ? 'stageRefusedTokenizer' : 'stageRefusedAdmission')}
          </text>
        ) : (
          <>
            <text x={f.router.x + 8} y={f.router.y + 52} className={`hp-sub${frame.step === 'tokenizer' ? ' hp-on' : ''}`}>
              {frame.stepIndex >= 0 && (frame.step === 'tokenizer' || frame.promptAt !== 'client') ? '\u2713 ' : ''}
              {t('stageTokenizer')}
            </text>
            <text x={f.router.x + 8} y={f.router.y + 70} className={`hp-sub${frame.step === 'abort' ? ' hp-on hp-bad' : placeholder ? ' hp-bad' : ''}`}>
              {placeholder ? '\u26a0 ' : ''}
              {t('stageScheduler')}
            </text>
          </>
        )}
        {/* Each step moves: the tokenizer counts, a queue waits, prefill computes, a page is let go */}
        {frame.step === 'tokenizer' ? (
          <text x={f.countAt[0]} y={f.countAt[1]} className="hp-sub" data-testid={row === 'main' ? 'stage-counting' : undefined}>
            {t('hpCounting', { tokens: fmt(Math.round(frame.promptTokens * frame.progress)) })}
          </text>
        ) : null}
        {frame.step === 'decode-wait' || frame.step === 'prefill-wait' ? (
          <g>
            <rect x={(frame.step === 'decode-wait' ? f.decode : f.prefill).x + 8} y={f.decode.y + f.decode.h - 12} width={((frame.step === 'decode-wait' ? f.decode : f.prefill).w - 16) * frame.progress} height={6} className="hp-progress" />
            <text x={(frame.step === 'decode-wait' ? f.decode : f.prefill).x + 8} y={f.labelRows[0]} className="hp-label">{t('hpWaiting')}</text>
          </g>
        ) : null}
        {/* The abort: the prompt's N tokens drain to the one placeholder the scheduler puts in their place */}
        {frame.step === 'abort' && frame.promptTokens > 0 ? (
          // Inside the router's box on a phone. On a laptop under the boxes (their label rows are free
          // during this step), on the card's scale (the advertised context across the picture's width).
          <rect
            x={f.router.x + 8}
            y={f.narrow ? f.router.y + 24 : f.router.y + f.router.h + 6}
            width={Math.max(2, f.narrow ? (f.router.w - 16) * (frame.inputTokens / frame.promptTokens) : (f.width - f.router.x - 16) * Math.min(1, frame.inputTokens / ADVERTISED_CONTEXT_TOKENS))}
            height={f.narrow ? 16 : 32}
            fill={tenantCss(tenant)}
            className="hp-bar"
            data-testid={row === 'main' ? 'stage-drain' : undefined}
          />
        ) : null}
        {frame.step === 'prefill-alloc' ? <rect x={f.prefill.x + 8} y={f.prefill.y + f.prefill.h - 12} width={(f.prefill.w - 16) * frame.progress} height={6} className="hp-progress" /> : null}
        {frame.step === 'prefill-free' ? (
          <g opacity={1 - frame.progress}>
            <rect x={f.prefill.x + f.prefill.w - 30} y={f.link[2] - 11} width={22} height={22} fill={tenantCss(tenant)} className="hp-page" />
            <text x={f.prefill.x + 8} y={f.labelRows[0]} className="hp-label">{t('hpPrefillFrees')}</text>
          </g>
        ) : null}
        {frame.step === 'reuse' && reuseFrom !== null ? (
          <text x={f.decode.x + f.decode.w} y={f.labelRows[0]} textAnchor="end" className="hp-label" data-testid={row === 'main' ? 'stage-reuse' : undefined}>
            {t('hpAfterFree', { ms: formatNumber(Math.max(0, Math.round((frame.t - reuseFrom) * 10) / 10), lang) })}
          </text>
        ) : null}
        {frame.step === 'reuse' && claimedAgain ? (
          <text x={f.decode.x + f.decode.w} y={f.labelRows[1]} textAnchor="end" className="hp-label" data-testid={row === 'main' ? 'stage-claimed' : undefined}>
            {t('hpStateClaimedBy', claimer(claimedAgain.by))}
          </text>
        ) : null}
        {/* Each node's second line: what it did for this request, else its pool */}
        {frame.computedTokens > 0 ? (
          <text x={f.prefill.x + 8} y={f.prefill.y + 35} className="hp-strong" data-testid={row === 'main' ? 'stage-computed' : undefined}>
            {t('hpComputed', { tokens: fmt(frame.computedTokens) })}
          </text>
        ) : (
          <text x={f.prefill.x + 8} y={f.prefill.y + 35} className="hp-sub">{poolLine(prefillName, prefillNode?.pageCount ?? 0)}</text>
        )}
        {frame.reserved.length > 0 ? (
          <text x={f.decode.x + 8} y={f.decode.y + 35} className="hp-strong">
            {frame.freed ? t(frame.cleared ? 'stageCleared' : f.narrow ? 'hpFreedShort' : 'hpFreed') : t(f.narrow ? 'hpReservedShort' : 'hpReserved', { pages: fmt(frame.reservedLit) })}
          </text>
        ) : (
          <text x={f.decode.x + 8} y={f.decode.y + 35} className="hp-sub">{poolLine(decodeName, decodeNode?.pageCount ?? 0)}</text>
        )}
        {/* "You are here": the microscope's pages on the decode node's context map */}
        {hereRings.map((c, i) => (
          <rect key={i} x={c.x - 4} y={c.y - 4} width={8} height={8} className="hp-here" />
        ))}
        {linkedCenter && linkedPage ? (
          <g data-testid={row === 'main' ? 'stage-linked' : undefined}>
            <circle cx={linkedCenter.x} cy={linkedCenter.y} r={7} className="hp-linked" />
            <text x={f.decode.x + f.decode.w} y={f.decode.y - 6} textAnchor="end" className="hp-label">
              {t('stageLinkedPage', { node: linkedPage.node, page: fmt(linkedPage.page) })}
            </text>
          </g>
        ) : null}
        {/* The request card */}
        {cardX !== null ? (
          <g className="hp-card" data-testid={row === 'main' ? 'stage-card' : undefined}>
            <rect x={cardLeft} y={2} width={cardInner + 16} height={40} rx={5} className="hp-card-box" />
            <text x={cardLeft + 8} y={18} className="hp-strong">
              {cardText}
            </text>
            <rect x={cardLeft + 8} y={26} width={barW} height={9} fill={tenantCss(tenant)} className="hp-bar" />
          </g>
        ) : null}
        {/* Pages on the RDMA link */}
        {frame.beamPages > 0 ? (
          <g data-testid={row === 'main' ? 'stage-beam' : undefined}>
            {Array.from({ length: beamDrawn }, (_, i) => (
              <rect key={i} x={beamX - i * 7} y={f.link[2] - 11} width={22} height={22} fill={tenantCss(tenant)} className="hp-page" />
            ))}
            {/* Under the boxes, ending where decode begins: the gap between the boxes is narrower than the words */}
            <text x={f.link[1] - 4} y={f.labelRows[0]} textAnchor="end" className="hp-label">
              {t('stageBeam', { pages: fmt(frame.beamPages) })}
            </text>
          </g>
        ) : null}
        {frame.step === 'transfer' && landAt ? (
          <rect x={lerp(f.link[1] - 22, landAt.x, ease(frame.progress))} y={lerp(f.link[2] - 11, landAt.y - 11, ease(frame.progress))} width={22} height={22} fill={tenantCss(tenant)} className="hp-page" data-testid={row === 'main' ? 'stage-landing' : undefined} />
        ) : null}
        {onePageTransfer && (frame.step === 'compute' || frame.step === 'transfer') && pagesLeft > 0 ? (
          <text x={f.decode.x + f.decode.w} y={f.labelRows[1]} textAnchor="end" className="hp-label hp-bad">
            {t('hpNothingFor', { pages: fmt(pagesLeft) })}
          </text>
        ) : null}
        {/* The "done" message: room and status, nothing else */}
        {frame.message ? (
          <g data-testid={row === 'main' ? 'stage-message' : undefined}>
            <rect x={msgLeft} y={f.control[2] - 11} width={msgW} height={22} rx={11} className="hp-msg" />
            <text x={msgLeft + 8} y={f.control[2] + 4} className="hp-strong">
              {msgText}
            </text>
            {frame.message.progress > 0.5 ? (
              <text x={f.link[0] + 4} y={f.labelRows[1]} className="hp-label">
                {t('stageDoneNote')}
              </text>
            ) : null}
          </g>
        ) : null}
        {frame.checkFailed ? (
          <text x={f.decode.x + 8} y={f.labelRows[0]} className="hp-label hp-bad" opacity={frame.step === 'check-failed' ? 0.25 + 0.75 * frame.progress : 1}>
            {'\u2716 '}
            {t('stageCheckFailed')}
          </text>
        ) : null}
        {/* HTTP status back to the client */}
        {statusShown ? (
          <g className={httpStatus === 200 ? 'hp-status' : 'hp-status hp-bad'} data-testid={row === 'main' ? 'stage-http' : undefined}>
            <line x1={statusFromX} y1={f.statusY} x2={statusX} y2={f.statusY} className="hp-status-line" />
            <rect x={statusX - 38} y={f.statusY - 12} width={76} height={24} rx={5} />
            <text x={statusX} y={f.statusY + 5} textAnchor="middle">HTTP {httpStatus}</text>
          </g>
        ) : null}

        {/* The microscope */}
        {micro.length > 0 && sample ? (
          <g>
            <text x={0} y={microTop + 16} className="hp-title">
              {t(f.narrow ? 'hpMicroHeadShort' : 'hpMicroHead')}
            </text>
            <text x={0} y={microTop + 34} className="hp-sub">
              {/* The table's whole length: the rows below are a few of its pages, the bands the rest (on a projector the camera may leave the last band out). */}
              {t('hpMicroTitle', { node: decodeName, id: detail.response.id, tenant: detail.response.tenant, pages: formatNumber(tableLength, lang) })}
            </text>
            {/* Over the rows drawn on the canvas: the linked slot and the slot the token in flight drew on */}
            {linkedRow >= 0 && linkedPage?.slot !== undefined ? (
              <rect x={stripX + ((linkedPage.slot % sample.pageSize) * stripW) / sample.pageSize - 3} y={stripY - ml.rowY[0]! + ml.rowY[linkedRow]! - 4} width={stripW / sample.pageSize + 6} height={16} className="hp-linked-slot" data-testid={row === 'main' ? 'stage-linked-slot' : undefined} />
            ) : null}
            {activeRow >= 0 && activeProv ? (
              <rect x={stripX + ((activeProv.slot % sample.pageSize) * stripW) / sample.pageSize - 2} y={ml.rowY[activeRow]! + stripY - ml.rowY[0]! - 3} width={stripW / sample.pageSize + 4} height={14} className="hp-slot-ring" />
            ) : null}
            {/* Every slot a cell: its word and writer on hover (the canvas draws the cells) */}
            <SlotCells rows={micro} x={stripX} top={stripY - 2} rowY={ml.rowY} width={stripW} pageSize={sample.pageSize} words={words} run={run} heldBut={writersHeld ? tenant : null} lang={lang} testId={row === 'main' ? 'stage-slot-cells' : undefined} />
            {/* Decode's query scanning the block table */}
            {frame.step === 'scan' ? (
              <line x1={ml.wordsX - 4} x2={f.width} y1={lerp(ml.rowY[0]!, ml.bottom - 6, frame.progress)} y2={lerp(ml.rowY[0]!, ml.bottom - 6, frame.progress)} className="hp-scan" />
            ) : null}
          </g>
        ) : null}

        {/* The response */}
        <g className="hp-response">
          <text x={0} y={responseTop + 16} className="hp-title">
            {t('stageResponse')}
            <tspan dx={8} className="hp-sub">{t('stageTokensOut', { shown: fmt(frame.tokensShown), count: fmt(tokens.length) })}</tspan>
            <tspan dx={8} className="hp-sub" data-testid={row === 'main' ? 'stage-model' : undefined}>{t(run.decoder === 'transformer' ? 'modelTransformer' : 'modelCompressed')}</tspan>
          </text>
          {cl.chips.map((c, i) => {
            if (i >= frame.tokensShown) return null;
            const p = prov[i];
            const wt = p?.writerTenant ? run.tenants.indexOf(p.writerTenant) : -1;
            const foreign = p?.writerTenant != null && p.writerTenant !== detail.response.tenant;
            let x = c.x;
            let y = c.y;
            if (i === active && activeFrom) {
              x = lerp(activeFrom.x - c.w / 2, c.x, flight);
              y = lerp(activeFrom.y, c.y, flight);
              // On the screen the word in flight stays whole inside the camera's window (its chip: 15 above its line, 6 below).
              if (screen) y = Math.max(cameraY + 15, Math.min(cameraY + shownHeight - 6, y));
            }
            return (
              <g key={i} className={`hp-token${foreign ? ' hp-foreign' : ''}${i === active ? ' hp-active' : ''}`} lang="en">
                <rect x={x} y={y - 15} width={c.w} height={21} rx={4} style={wt >= 0 ? { fill: tenantCss(wt) } : undefined} />
                <text x={x + c.w / 2} y={y} textAnchor="middle" style={wt >= 0 ? { fill: tenantInk(wt) } : undefined}>
                  {chipWords[i]}
                </text>
              </g>
            );
          })}
          {attentionShown ? (
            <g data-testid={row === 'main' ? 'stage-attention' : undefined}>
              <text x={0} y={cl.bottom + 14} className="hp-strong">
                {focal !== null && focalAttention ? t('hpAttention', { word: chipWords[focal] ?? '', shares: '' }) : t('attnTitle')}
              </text>
              {attentionLines.slice(0, ATTENTION_LINES).map((line, k) => (
                <text key={k} x={12} y={cl.bottom + 32 + k * 17} className="hp-attn">
                  {line}
                </text>
              ))}
            </g>
          ) : null}
          {activeFrom && activeChip && activeProv ? (
            <g className="hp-join">
              <path d={`M${activeFrom.x},${activeFrom.y} L${lerp(activeFrom.x, activeChip.x + activeChip.w / 2, flight)},${lerp(activeFrom.y, activeChip.y - 15, flight)}`} />
            </g>
          ) : null}
        </g>
      </svg>
    </>
  );
  return (
    <div
      className="stage-row hp"
      data-row={row}
      data-step={frame.step}
      data-step-index={frame.stepIndex}
      data-beam-pages={frame.beamPages}
      data-tokens-shown={frame.tokensShown}
      data-status={frame.status ?? ''}
      data-reserved-lit={frame.reservedLit}
      data-input-tokens={frame.inputTokens}
      data-testid={`stage-${row}`}
      style={screen ? { height: screen.viewHeight } : { height }}
      data-camera={cameraY.toFixed(1)}
    >
      {screen ? <div className="hp-window" style={{ position: 'relative', overflow: 'hidden', height: shownHeight * zoom }}>{drawn}</div> : drawn}
    </div>
  );
}
