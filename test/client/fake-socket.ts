/** What a fake server does with one socket: fail it before it opens, open it, send it a message. */
export interface FakeConnection {
  readonly url: string;
  fail(): void;
  open(): void;
  message(data: string): void;
}

/**
 * A WebSocket class for weft/client's tests: records the URL of each socket the client opens (and
 * in `protocols` the subprotocols it offers, `undefined` for none) and hands it to `serve` a moment
 * later (none: it stays connecting). The last one made is `last`.
 */
export function fakeSocket(urls: string[], serve?: (socket: FakeConnection) => void, protocols: Array<string | string[] | undefined> = []) {
  return class FakeSocket extends EventTarget {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    static last: FakeSocket | undefined;
    readyState = 0;
    binaryType = "blob";
    constructor(readonly url: string, offered?: string | string[]) {
      super();
      urls.push(url);
      protocols.push(offered);
      FakeSocket.last = this;
      if (serve) setTimeout(() => serve(this), 1);
    }
    fail() {
      this.readyState = 3;
      this.dispatchEvent(new Event("error"));
      this.dispatchEvent(Object.assign(new Event("close"), { code: 1006, reason: "" }));
    }
    open() {
      this.readyState = 1;
      this.dispatchEvent(new Event("open"));
    }
    message(data: string) {
      this.dispatchEvent(Object.assign(new Event("message"), { data }));
    }
    send() {}
    close(code = 1000, reason = "") {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this.dispatchEvent(Object.assign(new Event("close"), { code, reason }));
    }
  };
}

/** A server that refuses every upgrade, as a browser sees a refused one. */
export const refuseAll = (socket: FakeConnection) => socket.fail();
