import type { Socket } from 'node:net';
import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http';
import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import { nextRequestId } from './logging.ts';

/**
 * Answers a request Node.js's HTTP parser refused before the application saw it (a malformed request
 * line or header, an unknown method, both Content-Length and Transfer-Encoding, headers over Node's
 * limit, 16 KB unless --max-http-header-size says otherwise, a request not whole within Node's requestTimeout)
 * with the API's JSON error instead of Node's bare `400 Bad Request`, then closes the connection: the
 * parser cannot tell where the next request would start. The answer carries a request id, as every
 * error does, and the log has a line with it: the caller's report can be found there.
 */
export function answerClientErrors(log: Logger) {
  return function answerClientError(this: Server | undefined, err: Error & { code?: string }, socket: Socket): void {
    // A client that went away, or a socket already answered: nothing to say, and nobody to say it to.
    if (err.code === 'ECONNRESET' || !socket.writable || socket.writableEnded) {
      socket.destroy();
      return;
    }
    // Node's own timeout for a whole request (headers and body): a body that stopped arriving.
    const seconds = Math.round((this?.requestTimeout ?? 300_000) / 1000);
    const error =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('headers_too_large', `The request's headers are larger than the ${maxHeaderSize} bytes the server takes`, { max: maxHeaderSize })
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('request_timeout', `The whole request did not arrive within ${seconds} s (its body stopped coming, or came too slowly); send it again`, { timeoutSeconds: seconds })
          : new AppError('malformed_request', `The request is not valid HTTP: ${parserReason(err)}`);
    socket.end(socketAnswer(error, log, socket));
  };
}

/**
 * The whole HTTP answer, written straight to a socket, for an error found before a request exists
 * (no koa context, no error boundary): the JSON envelope with a fresh `requestId`, sent as
 * `X-Request-Id` too, and logged with the request line's fields it has (none: the request was not read).
 */
export function socketAnswer(error: AppError, log: Logger, socket: Socket, headers: Record<string, string> = {}): string {
  const requestId = nextRequestId();
  log.info({ requestId, status: error.status, code: error.code, remoteAddress: socket.remoteAddress }, 'request refused before it was read');
  const body = JSON.stringify({ error: { code: error.code, message: error.message, ...error.data, requestId } });
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\n${extra}Connection: close\r\n\r\n${body}`;
}

/** llhttp's reason, as it says it ("Invalid method encountered"), without its code. */
const parserReason = (err: Error & { reason?: string }) => (err.reason ?? err.message).replace(/^Parse Error: /, '');
