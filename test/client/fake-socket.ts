/**
 * A WebSocket class for weft/client's tests: records the URL of each socket the client opens;
 * with `refuse`, each fails before it opens, as a browser sees a refused upgrade.
 */
export function fakeSocket(urls: string[], { refuse = false } = {}) {
  return class extends EventTarget {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    readyState = 0;
    binaryType = "blob";
    constructor(url: string) {
      super();
      urls.push(url);
      if (!refuse) return;
      setTimeout(() => {
        this.readyState = 3;
        this.dispatchEvent(new Event("error"));
        this.dispatchEvent(Object.assign(new Event("close"), { code: 1006, reason: "" }));
      }, 1);
    }
    send() {}
    close() {
      this.readyState = 3;
    }
  };
}
