import type { Socket } from 'node:net';
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import { AppError } from '../errors.ts';

/**
 * Answers a request Node.js's HTTP parser refused before the application saw it (a malformed request
 * line or header, an unknown method, both Content-Length and Transfer-Encoding, headers over Node's
 * limit, 16 KB unless --max-http-header-size says otherwise)
 * with the API's JSON error instead of Node's bare `400 Bad Request`, then closes the connection: the
 * parser cannot tell where the next request would start.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  // A client that went away, or a socket already answered: nothing to say, and nobody to say it to.
  if (err.code === 'ECONNRESET' || !socket.writable || socket.writableEnded) {
    socket.destroy();
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('headers_too_large', `The request's headers are larger than the ${maxHeaderSize} bytes the server takes`, { max: maxHeaderSize })
      : new AppError('malformed_request', `The request is not valid HTTP: ${parserReason(err)}`);
  const body = JSON.stringify({ error: { code: error.code, message: error.message, ...error.data } });
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** llhttp's reason, as it says it ("Invalid method encountered"), without its code. */
const parserReason = (err: Error & { reason?: string }) => (err.reason ?? err.message).replace(/^Parse Error: /, '');
