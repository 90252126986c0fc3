/**
 * A server's start-up log read from a file of any size in bounded memory: the file is read into one
 * fixed buffer, the start-up markers are looked for in the bytes (`Buffer.indexOf`), and only a line
 * that holds one is decoded to a string and handed to the engine's `StartupLogReader`; every other
 * line is only counted (for the line numbers of what is reported). A line longer than the buffer is
 * cut to the buffer's length. What cannot be read comes back as a problem (`cannot-read`), never a
 * throw; a file with NUL bytes near its start as `not-text`.
 *
 * `readServerFile` reads the other forms too (launch arguments, `/get_server_info` JSON): those are
 * small, so they are read whole (up to `WHOLE_LIMIT`) and handed to `parseServerText`; a file that
 * starts like a log, or is larger, is streamed.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { StartupLogReader, STARTUP_MARKERS, parseServerText, type InputProblem, type Parsed, type Role } from '../engine/sglangInput.ts';

/** The buffer's size: the most a run holds of the file at once. */
export const CHUNK_BYTES = 4 * 1024 * 1024;
/** Launch arguments and server-info files are read whole up to this size. */
export const WHOLE_LIMIT = 4 * 1024 * 1024;

const NL = 0x0a;
const MARKERS = STARTUP_MARKERS.map((m) => Buffer.from(m, 'latin1'));

function cannotRead(path: string, e: unknown): Parsed {
  const code = (e as NodeJS.ErrnoException)?.code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String((e as Error)?.message ?? e);
  const problem: InputProblem = { source: path, line: 1, field: '(file)', kind: 'cannot-read', ...(code ? { value: code } : {}), message: `cannot read (${code ?? 'error'}): ${why}` };
  return { servers: [], problems: [problem], superseded: [] };
}

/** Newlines in buf[from, to). */
function countLines(buf: Buffer, from: number, to: number): number {
  let n = 0;
  let i = buf.indexOf(NL, from);
  while (i >= 0 && i < to) {
    n++;
    i = buf.indexOf(NL, i + 1);
  }
  return n;
}

async function readInto(fh: FileHandle, buf: Buffer, at: number): Promise<number> {
  const { bytesRead } = await fh.read(buf, at, buf.length - at, null);
  return bytesRead;
}

/**
 * Feed a reader the lines of an open file: whole lines of each buffer-full; where a marker is in the
 * bytes, the line around it is decoded; the lines between are counted.
 */
async function stream(fh: FileHandle, reader: StartupLogReader, chunkBytes: number): Promise<'binary' | 'ok'> {
  const buf = Buffer.allocUnsafe(chunkBytes);
  let len = 0;
  let first = true;
  let eof = false;
  while (!eof) {
    const got = await readInto(fh, buf, len);
    if (got === 0) eof = true;
    len += got;
    if (first) {
      first = false;
      if (buf.subarray(0, Math.min(len, 8192)).includes(0)) return 'binary';
    }
    if (len === 0) break;
    const view = buf.subarray(0, len);
    // The end of the whole lines in the buffer (exclusive): after its last newline, or all of it at
    // the end of the file, or all of it when one line is longer than the buffer (cut there).
    const lastNl = view.lastIndexOf(NL);
    let cut = false;
    let stop: number;
    if (eof) stop = len;
    else if (lastNl >= 0) stop = lastNl + 1;
    else if (len < buf.length) continue; // more to read before a whole line is here
    else {
      stop = len;
      cut = true;
    }
    let cursor = 0; // the start of the first line not yet counted
    const next = MARKERS.map((m) => view.indexOf(m, 0));
    for (;;) {
      let p = -1;
      for (const q of next) if (q >= 0 && q < stop && (p < 0 || q < p)) p = q;
      if (p < 0) break;
      const lineStart = p === 0 ? 0 : view.lastIndexOf(NL, p - 1) + 1;
      let lineEnd = view.indexOf(NL, p);
      if (lineEnd < 0 || lineEnd >= stop) lineEnd = stop;
      if (lineStart > cursor) reader.skipLines(countLines(view, cursor, lineStart));
      reader.line(view.toString('utf8', lineStart, lineEnd));
      cursor = lineEnd + 1;
      for (let i = 0; i < next.length; i++) if (next[i]! >= 0 && next[i]! < cursor) next[i] = cursor < len ? view.indexOf(MARKERS[i]!, cursor) : -1;
    }
    if (cursor < stop) {
      // A last line without a newline (the end of the file, or a cut line) is a line too.
      reader.skipLines(countLines(view, cursor, stop) + (view[stop - 1] !== NL ? 1 : 0));
    }
    if (eof) break;
    if (cut) {
      // Skip to the end of the over-long line.
      len = 0;
      for (;;) {
        const n = await readInto(fh, buf, 0);
        if (n === 0) {
          eof = true;
          break;
        }
        const nl = buf.subarray(0, n).indexOf(NL);
        if (nl >= 0) {
          buf.copy(buf, 0, nl + 1, n);
          len = n - nl - 1;
          break;
        }
      }
      if (eof) break;
      continue;
    }
    // Keep the partial last line at the buffer's start.
    buf.copy(buf, 0, stop, len);
    len -= stop;
  }
  return 'ok';
}

/** A start-up log of any size, streamed (see the module's comment). */
export async function readStartupFile(path: string, role: Role | null, options: { chunkBytes?: number } = {}): Promise<Parsed> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    return cannotRead(path, e);
  }
  try {
    const reader = new StartupLogReader(path, role);
    const how = await stream(fh, reader, Math.max(1024, options.chunkBytes ?? CHUNK_BYTES));
    if (how === 'binary') {
      reader.line('\u0000');
    }
    return reader.finish();
  } catch (e) {
    return cannotRead(path, e);
  } finally {
    await fh.close().catch(() => {});
  }
}

/**
 * Any of an operator's texts from a file: a start-up log is streamed, launch arguments and
 * `/get_server_info` JSON are read whole and told apart by `parseServerText`.
 */
export async function readServerFile(path: string, role: Role | null, options: { chunkBytes?: number } = {}): Promise<Parsed> {
  let head: Buffer;
  let size: number;
  try {
    const fh = await open(path, 'r');
    try {
      size = (await fh.stat()).size;
      head = Buffer.alloc(Math.min(size, WHOLE_LIMIT));
      if (head.length > 0) await fh.read(head, 0, head.length, 0);
    } finally {
      await fh.close().catch(() => {});
    }
  } catch (e) {
    return cannotRead(path, e);
  }
  const isLog = MARKERS.some((m) => head.includes(m));
  if (size > WHOLE_LIMIT || isLog) return readStartupFile(path, role, options);
  return parseServerText(head.toString('utf8'), path, role);
}
