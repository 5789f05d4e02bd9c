import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import { plainAddress } from './client-address.ts';
import { socketAnswer } from './client-errors.ts';

/** Seconds a client over its share of connections is asked to wait (Retry-After). */
const RETRY_SECONDS = 1;

/**
 * Caps the connections one client address holds open at once (HELP_CONNECTIONS_PER_ADDRESS): one
 * address opening thousands of sockets, each trickling a request, would otherwise hold every socket
 * the process may open. A connection beyond the cap is answered 429 too_many_requests at once and
 * closed, before anything is read from it. `exempt` peers (trusted proxies) are not counted: every
 * client behind them shares their address.
 */
export function capConnectionsPerAddress(server: Server, max: number, exempt: (address: string) => boolean, log: Logger): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = plainAddress(socket.remoteAddress ?? '');
    if (exempt(address)) return;
    const count = open.get(address) ?? 0;
    if (count >= max) return refuse(socket, max, log);
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = open.get(address)! - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

function refuse(socket: Socket, max: number, log: Logger): void {
  const error = new AppError('too_many_requests', `This address has ${max} connections open already, as many as one address may (HELP_CONNECTIONS_PER_ADDRESS): reuse one of them, or retry once one is closed`, {
    limit: 'connections_per_address',
    max,
    retryAfter: RETRY_SECONDS,
  });
  // Ended and destroyed once written: the request the client may be sending is never read.
  socket.on('error', () => undefined);
  socket.end(socketAnswer(error, log, socket, { 'Retry-After': String(RETRY_SECONDS) }));
  socket.destroySoon();
}
