import type { SocketLike } from '../api/client';

/** An in-memory websocket: the test plays the hub. */
export class FakeSocket implements SocketLike {
  static all: FakeSocket[] = [];
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  sent: { id: number; method: string; params: unknown }[] = [];
  closed = false;
  answered = new Set<number>();

  constructor(public url: string) {
    FakeSocket.all.push(this);
  }

  static last(): FakeSocket {
    return FakeSocket.all[FakeSocket.all.length - 1];
  }

  static reset(): void {
    FakeSocket.all = [];
  }

  send(data: string): void {
    if (this.readyState !== 1) throw new Error('not open');
    this.sent.push(JSON.parse(data));
  }

  close(): void {
    this.closed = true;
    this.readyState = 3;
  }

  // --- the hub's side ---
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  push(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  reply(id: number, result: unknown): void {
    this.answered.add(id);
    this.push({ id, result });
  }
  fail(id: number, code: string, message: string): void {
    this.answered.add(id);
    this.push({ id, error: { code, message } });
  }
  /** Answers every request for a method not answered yet. */
  replyAll(method: string, result: unknown): number {
    const open = this.sent.filter((f) => f.method === method && !this.answered.has(f.id));
    for (const f of open) this.reply(f.id, result);
    return open.length;
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
  /** The latest unanswered request for a method, else the latest one (throws when there is none). */
  request(method: string): { id: number; method: string; params: unknown } {
    const all = [...this.sent].reverse().filter((f) => f.method === method);
    const r = all.find((f) => !this.answered.has(f.id)) ?? all[0];
    if (!r) throw new Error(`no ${method} request; sent: ${this.sent.map((f) => f.method).join(', ')}`);
    return r;
  }
}

export const socketFactory = (url: string) => new FakeSocket(url);
