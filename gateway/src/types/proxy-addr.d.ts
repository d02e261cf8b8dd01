// proxy-addr (express's own dependency for `req.ip`) ships no types; the part the gateway uses.
declare module "proxy-addr" {
  import type { IncomingMessage } from "node:http";

  type Trust = (addr: string, index: number) => boolean;

  function proxyaddr(req: IncomingMessage, trust: Trust): string;
  namespace proxyaddr {
    function compile(value: string | string[]): Trust;
  }
  export default proxyaddr;
}
