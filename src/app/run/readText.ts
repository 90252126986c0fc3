/**
 * Reading one box of "Your deployment" (the launch arguments, a server's start-up log), as its worker
 * does it: the text is walked in chunks of whole lines, each chunk's lines counted and reported, the
 * worker hearing between two chunks whether a newer edit has cancelled the read; then the figures are
 * read from the whole text by the engine's parser. A pasted log is mostly request lines: walking it
 * costs little, and the page stays free whatever its size, since none of this runs on the page's thread.
 *
 * `parseBox` is the one call into the engine's parsers (engine/sglangInput.ts): which parser reads a
 * box is decided there and nowhere else.
 */
import { parseServerText, type Parsed } from '../../engine/sglangInput.ts';
import type { Method } from './rpc.ts';

/** Which box a text was typed or pasted in: the launch arguments, or a prefill or decode server's log. */
export type BoxKind = 'args' | 'prefill' | 'decode';

/** How far a read has got: characters (a log's bytes, for ASCII) and lines of the text walked so far. */
export interface ReadProgress {
  read: number;
  total: number;
  lines: number;
  /** Every line walked: the figures are being read from the whole text. */
  parsing: boolean;
}

export interface ReadResult extends Parsed {
  /** Lines in the text (a last line without its newline counts). */
  lines: number;
}

export type ReadTextProtocol = {
  read: Method<{ text: string; source: string; kind: BoxKind }, ReadResult, ReadProgress>;
};

/** Characters per chunk (rounded up to the end of a line): about 8,000 lines of a request log. */
export const CHUNK_CHARS = 1 << 20;

/** The engine's reading of one box. */
export function parseBox(text: string, source: string, kind: BoxKind): Parsed {
  // Any box takes any of an operator's texts (a log, launch arguments, /get_server_info JSON), told apart
  // by their content; a prefill or decode box also says the role.
  return parseServerText(text, source, kind === 'args' ? null : kind);
}

/** Lets the worker take its next message (a cancel) before going on; no timer clamping, unlike setTimeout. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

function cancelled(): DOMException {
  return new DOMException('cancelled', 'AbortError');
}

/** Reads `text` as `kind`'s box, reporting progress after each chunk of lines; rejects once `signal` aborts. */
export async function readText(text: string, source: string, kind: BoxKind, onProgress: (p: ReadProgress) => void, signal: AbortSignal): Promise<ReadResult> {
  const total = text.length;
  let read = 0;
  let newlines = 0;
  while (read < total) {
    if (signal.aborted) throw cancelled();
    let end = Math.min(total, read + CHUNK_CHARS);
    if (end < total) {
      const nl = text.indexOf('\n', end - 1);
      end = nl < 0 ? total : nl + 1;
    }
    for (let i = text.indexOf('\n', read); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) newlines++;
    read = end;
    onProgress({ read, total, lines: newlines, parsing: false });
    await nextTask();
  }
  if (signal.aborted) throw cancelled();
  const lines = newlines + (total > 0 && text.charCodeAt(total - 1) !== 10 ? 1 : 0);
  onProgress({ read: total, total, lines, parsing: true });
  await nextTask();
  if (signal.aborted) throw cancelled();
  return { ...parseBox(text, source, kind), lines };
}
