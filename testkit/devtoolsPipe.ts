/**
 * A raw Chrome DevTools Protocol connection over `--remote-debugging-pipe` (file descriptors 3 and 4, messages
 * ended by NUL). Chosen over a WebSocket because it needs no Node flag (Node 20's WebSocket is behind
 * `--experimental-websocket`, which vitest workers and tsx would each have to be given) and no port.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

interface Pending {
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

export type EventListener = (params: Record<string, unknown>, sessionId: string | undefined) => void;

export class DevToolsPipe {
  private nextId = 0;
  private buffer = '';
  private closedError: Error | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly output: Writable;

  constructor(process: ChildProcess) {
    const output = process.stdio[3] as Writable | null;
    const input = process.stdio[4] as Readable | null;
    if (!output || !input) throw new Error('DevToolsPipe: the browser was not started with pipes on fd 3 and 4');
    this.output = output;
    input.on('data', (chunk: Buffer) => this.receive(chunk.toString('utf8')));
    process.on('exit', (code, signal) => this.fail(new Error(`the browser exited (code ${code}, signal ${signal})`)));
  }

  /** Sends one command; resolves with its result or rejects with the protocol's error message. */
  send<T = Record<string, unknown>>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = ++this.nextId;
    const message = sessionId ? { id, method, params, sessionId } : { id, method, params };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as Pending['resolve'], reject });
      this.output.write(`${JSON.stringify(message)}\0`);
    });
  }

  on(event: string, listener: EventListener): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  fail(error: Error): void {
    this.closedError ??= error;
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(new Error(`${pending.method}: ${error.message}`));
    }
  }

  private receive(text: string): void {
    this.buffer += text;
    let end: number;
    while ((end = this.buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(this.buffer.slice(0, end)) as {
        id?: number;
        method?: string;
        params?: Record<string, unknown>;
        sessionId?: string;
        result?: Record<string, unknown>;
        error?: { message: string };
      };
      this.buffer = this.buffer.slice(end + 1);
      if (message.id !== undefined) {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (!pending) continue;
        if (message.error) pending.reject(new Error(`${pending.method}: ${message.error.message}`));
        else pending.resolve(message.result ?? {});
      } else if (message.method) {
        for (const listener of this.listeners.get(message.method) ?? []) listener(message.params ?? {}, message.sessionId);
      }
    }
  }
}
