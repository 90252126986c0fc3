/**
 * The one worker RPC: request/reply matched by id, a progress stream per call, cancellation by
 * AbortSignal (and a `supersede` key: a new call with the same key cancels the one before), and
 * events a worker sends unasked. A worker's protocol is declared once, as a map from method to its
 * params, result and progress; both ends are typed from that one declaration.
 */

export interface Method<Params = unknown, Result = unknown, Progress = never> {
  params: Params;
  result: Result;
  progress: Progress;
}

export type Protocol = Record<string, Method<unknown, unknown, unknown>>;

type CallMessage = { id: number; method: string; params: unknown } | { id: number; cancel: true };
type ReplyMessage =
  | { id: number; result: unknown }
  | { id: number; error: string; aborted?: true }
  | { id: number; progress: unknown }
  | { event: unknown };

export interface CallOptions<Progress> {
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /** Calls with the same key supersede each other: the earlier one is cancelled. */
  supersede?: string;
  transfer?: Transferable[];
}

export interface RpcClient<P extends Protocol> {
  call<M extends keyof P & string>(method: M, params: P[M]['params'], options?: CallOptions<P[M]['progress']>): Promise<P[M]['result']>;
  /** Stops the worker; every call in flight rejects. */
  terminate(): void;
}

export function abortError(message = 'cancelled'): DOMException {
  return new DOMException(message, 'AbortError');
}

/** Workers started by clients and not yet stopped, by name (the soak benchmark checks none is left behind). */
const liveWorkers = new Map<Worker, string>();

export function liveWorkerNames(): string[] {
  return [...liveWorkers.values()];
}

/**
 * A client over one lazily started worker. `onEvent` hears what the worker sends unasked.
 * `terminateOnCancel`: a worker whose calls run synchronously to the end (a replay) cannot hear a
 * cancel message; cancelling then stops the worker itself.
 */
export function rpcClient<P extends Protocol, Event = never>(
  start: () => Worker,
  name: string,
  options: { onEvent?: (e: Event) => void; terminateOnCancel?: boolean } = {},
): RpcClient<P> {
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void; progress?: (p: unknown) => void }>();
  const superseded = new Map<string, AbortController>();

  const failAll = (e: Error) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  const get = (): Worker => {
    if (worker) return worker;
    const w = start();
    worker = w;
    liveWorkers.set(w, name);
    w.onmessage = (e: MessageEvent<ReplyMessage>) => {
      const msg = e.data;
      if ('event' in msg) return options.onEvent?.(msg.event as Event);
      const p = pending.get(msg.id);
      if (!p) return;
      if ('progress' in msg) return p.progress?.(msg.progress);
      pending.delete(msg.id);
      if ('result' in msg) p.resolve(msg.result);
      else p.reject(msg.aborted ? abortError(msg.error) : new Error(msg.error));
    };
    w.onerror = (e) => {
      failAll(new Error(e.message || `${name} failed`));
      w.terminate();
      liveWorkers.delete(w);
      if (worker === w) worker = null;
    };
    return w;
  };
  const terminate = () => {
    if (worker) liveWorkers.delete(worker);
    worker?.terminate();
    worker = null;
    failAll(abortError(`${name} stopped`));
  };

  return {
    call(method, params, o = {}) {
      let signal = o.signal;
      if (o.supersede) {
        superseded.get(o.supersede)?.abort();
        const c = new AbortController();
        superseded.set(o.supersede, c);
        o.signal?.addEventListener('abort', () => c.abort(), { once: true });
        signal = c.signal;
      }
      if (signal?.aborted) return Promise.reject(abortError());
      const id = nextId++;
      const w = get();
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve: resolve as (r: unknown) => void, reject, ...(o.onProgress ? { progress: o.onProgress as (p: unknown) => void } : {}) });
        signal?.addEventListener(
          'abort',
          () => {
            if (!pending.has(id)) return;
            if (options.terminateOnCancel) return terminate();
            pending.delete(id);
            w.postMessage({ id, cancel: true } satisfies CallMessage);
            reject(abortError());
          },
          { once: true },
        );
        w.postMessage({ id, method, params } satisfies CallMessage, o.transfer ?? []);
      });
    },
    terminate,
  };
}

export interface HandlerContext<Progress> {
  progress(p: Progress, transfer?: Transferable[]): void;
  /** Aborted when the caller cancels; long handlers check it between chunks. */
  signal: AbortSignal;
  /** Buffers of the result to transfer rather than copy. */
  transfer(list: Transferable[]): void;
}

export type Handlers<P extends Protocol> = {
  [M in keyof P]: (params: P[M]['params'], ctx: HandlerContext<P[M]['progress']>) => P[M]['result'] | Promise<P[M]['result']>;
};

interface WorkerScope {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent) => void) | null;
}

/** Serves a protocol inside a worker. Returns a function that sends an unasked event. */
export function serveRpc<P extends Protocol, Event = never>(scope: WorkerScope, handlers: Handlers<P>): (event: Event, transfer?: Transferable[]) => void {
  const running = new Map<number, AbortController>();
  scope.onmessage = async (e: MessageEvent<CallMessage>) => {
    const msg = e.data;
    if ('cancel' in msg) return running.get(msg.id)?.abort();
    const controller = new AbortController();
    running.set(msg.id, controller);
    let transfer: Transferable[] = [];
    const ctx: HandlerContext<unknown> = {
      progress: (p, list = []) => scope.postMessage({ id: msg.id, progress: p } satisfies ReplyMessage, list),
      signal: controller.signal,
      transfer: (list) => void (transfer = list),
    };
    try {
      const handler = handlers[msg.method as keyof P];
      if (!handler) throw new Error(`no method ${msg.method}`);
      const result = await handler(msg.params as never, ctx as never);
      if (controller.signal.aborted) scope.postMessage({ id: msg.id, error: 'cancelled', aborted: true } satisfies ReplyMessage);
      else scope.postMessage({ id: msg.id, result } satisfies ReplyMessage, transfer);
    } catch (err) {
      const aborted = controller.signal.aborted;
      scope.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err), ...(aborted ? { aborted: true as const } : {}) } satisfies ReplyMessage);
    } finally {
      running.delete(msg.id);
    }
  };
  return (event, list = []) => scope.postMessage({ event } satisfies ReplyMessage, list);
}
