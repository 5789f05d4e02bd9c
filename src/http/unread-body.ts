import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';

/** Whether the request announced a body (a length above zero, or chunks). */
const hasBody = (req: IncomingMessage) => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * Closes the connection after answering a request whose body has not all arrived (a 401, 404 or 415
 * refused before its body was read). Node.js would otherwise read and drop the rest to keep the
 * connection for the next request: a body trickled a byte at a time then held the socket until the
 * request timeout, minutes after its answer was sent.
 */
export function closeAfterUnreadBody(): Middleware {
  return async (ctx, next) => {
    // Most requests (every read) announce no body: nothing to wait for, and no promise of this middleware's own.
    if (!hasBody(ctx.req)) return next();
    try {
      await next();
    } finally {
      const req = ctx.req;
      if (!req.complete) {
        // A refusal is decided before Node.js has parsed the bytes that came with the headers: once it
        // has, a body that was all there is complete, and the connection can serve the next request.
        await new Promise(setImmediate);
        if (!req.complete) {
          // Node.js ends the connection after an answer that says so.
          ctx.set('Connection', 'close');
          // An answer its handler wrote (ctx.respond = false) has its headers out already, and Koa's
          // set does nothing then: such a connection is ended once the answer is out all the same.
          if (ctx.res.writableFinished) req.socket.destroySoon();
          else ctx.res.once('finish', () => req.socket.destroySoon());
        }
      }
    }
  };
}
