/**
 * Request/reply over one lazily started Web Worker: each request gets an id, the reply with that id
 * settles it, an `error` reply rejects it, and a crashed worker rejects everything in flight.
 */
type WithId = { id: number; kind: string };
type ErrorReply = { kind: 'error'; id: number; message: string };

export type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

export interface WorkerRpc<Req extends WithId, Res extends WithId> {
  call(request: WithoutId<Req>): Promise<Exclude<Res, ErrorReply>>;
}

export function workerRpc<Req extends WithId, Res extends WithId>(start: () => Worker, name: string, onEveryReply?: (reply: Res) => void): WorkerRpc<Req, Res> {
  let worker: Worker | null = null;
  const pending = new Map<number, { resolve: (r: Exclude<Res, ErrorReply>) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  const get = () => {
    if (!worker) {
      worker = start();
      worker.onmessage = (e: MessageEvent<Res>) => {
        onEveryReply?.(e.data);
        const p = pending.get(e.data.id);
        if (!p) return;
        pending.delete(e.data.id);
        if (e.data.kind === 'error') p.reject(new Error((e.data as unknown as ErrorReply).message));
        else p.resolve(e.data as Exclude<Res, ErrorReply>);
      };
      worker.onerror = (e) => {
        for (const p of pending.values()) p.reject(new Error(e.message || `${name} failed`));
        pending.clear();
      };
    }
    return worker;
  };
  return {
    call(request) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        get().postMessage({ ...request, id });
      });
    },
  };
}
