/**
 * A finished run as one binary file: the run the worker transfers, its typed arrays laid end to end
 * (each underlying buffer once, 8-byte aligned) after a JSON header that holds everything else and
 * says where each array lies. The build writes the default scenario's run in this form
 * (scripts/prebuiltRuns.ts) and the page loads it instead of replaying two weeks at start-up.
 *
 *   "SPRUN001" | u32 header bytes | header (UTF-8 JSON) | padding to 8 | buffer 0 | padding | buffer 1 …
 */
import type { ComputedRun } from './computeRun.ts';
import type { RequestDetailReply } from './runProtocol.ts';

/**
 * Some requests' events and responses, stored with the run so that the first screen can show the
 * leaked answer and its handoff without replaying two weeks for them (the leaking requests).
 */
export interface StoredDetails {
  words: string[];
  byRequest: Record<number, Omit<RequestDetailReply, 'words'>>;
}

const MAGIC = 'SPRUN001';

type ArrayName = 'Int8Array' | 'Uint8Array' | 'Uint8ClampedArray' | 'Int16Array' | 'Uint16Array' | 'Int32Array' | 'Uint32Array' | 'Float32Array' | 'Float64Array';
const ARRAYS: Record<ArrayName, new (b: ArrayBuffer, offset: number, length: number) => ArrayBufferView> = {
  Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array,
};

interface ArrayRef { $array: ArrayName; buffer: number; offset: number; length: number }
interface NumberRef { $number: 'NaN' | 'Infinity' | '-Infinity' }
interface Header { runKey: string; buffers: number[]; run: unknown; details?: unknown }

const align8 = (n: number) => (n + 7) & ~7;

export function encodeRunAsset(runKey: string, run: ComputedRun, details?: StoredDetails): Uint8Array {
  const buffers: ArrayBufferLike[] = [];
  const replacer = function (this: unknown, _key: string, value: unknown) {
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const name = value.constructor.name as ArrayName;
      if (!(name in ARRAYS)) throw new Error(`cannot store a ${name} in a run asset`);
      let buffer = buffers.indexOf(value.buffer);
      if (buffer < 0) buffer = buffers.push(value.buffer) - 1;
      const ref: ArrayRef = { $array: name, buffer, offset: value.byteOffset, length: (value as unknown as { length: number }).length };
      return ref;
    }
    if (typeof value === 'number' && !Number.isFinite(value)) return { $number: String(value) } as NumberRef;
    return value;
  };
  const json = JSON.stringify(run, replacer);
  // The details may hold typed arrays too (a response's slot sample): their buffers must be listed in the header.
  const detailsJson = details ? JSON.stringify(details, replacer) : null;
  const header: Header = { runKey, buffers: buffers.map((b) => b.byteLength), run: '$RUN', ...(details ? { details: '$DETAILS' } : {}) };
  let headerText = JSON.stringify(header).replace('"$RUN"', () => json);
  if (detailsJson !== null) headerText = headerText.replace('"$DETAILS"', () => detailsJson);
  const headerBytes = new TextEncoder().encode(headerText);
  let size = align8(12 + headerBytes.length);
  for (const b of buffers) size = align8(size + b.byteLength);
  const out = new Uint8Array(size);
  for (let i = 0; i < 8; i++) out[i] = MAGIC.charCodeAt(i);
  new DataView(out.buffer).setUint32(8, headerBytes.length, true);
  out.set(headerBytes, 12);
  let at = align8(12 + headerBytes.length);
  for (const b of buffers) {
    out.set(new Uint8Array(b as ArrayBuffer), at);
    at = align8(at + b.byteLength);
  }
  return out;
}

/** The run stored by `encodeRunAsset`, its arrays viewing `bytes` (no copy); throws naming what is wrong. */
export function decodeRunAsset(bytes: ArrayBuffer): { runKey: string; run: ComputedRun; details: StoredDetails | null } {
  const head = new Uint8Array(bytes, 0, Math.min(12, bytes.byteLength));
  const magic = String.fromCharCode(...head.subarray(0, 8));
  if (magic !== MAGIC) throw new Error(`not a run asset of this version (starts with ${JSON.stringify(magic)}, expected ${MAGIC})`);
  const headerLength = new DataView(bytes).getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 12, headerLength))) as Header;
  const starts: number[] = [];
  let at = align8(12 + headerLength);
  for (const n of header.buffers) {
    starts.push(at);
    at = align8(at + n);
  }
  if (at > align8(bytes.byteLength)) throw new Error(`run asset truncated: ${bytes.byteLength} bytes, its header describes ${at}`);
  const revive = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(revive);
    if (value === null || typeof value !== 'object') return value;
    const o = value as Record<string, unknown>;
    if ('$array' in o) {
      const ref = o as unknown as ArrayRef;
      return new ARRAYS[ref.$array](bytes, starts[ref.buffer]! + ref.offset, ref.length);
    }
    if ('$number' in o) return Number((o as unknown as NumberRef).$number);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o)) out[k] = revive(o[k]);
    return out;
  };
  return { runKey: header.runKey, run: revive(header.run) as ComputedRun, details: header.details ? (revive(header.details) as StoredDetails) : null };
}
