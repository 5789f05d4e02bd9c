import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { isRange } from './config.ts';

/**
 * Addresses a webhook must not reach unless the allow-list names them: this machine, its link, and
 * the private networks behind it (where an attacker who may subscribe would otherwise probe through us).
 */
const FORBIDDEN = (() => {
  const list = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ] as const) list.addSubnet(net, bits, 'ipv4');
  for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) list.addSubnet(net, bits, 'ipv6');
  return list;
})();

/** Why an address is refused ("a loopback address"), or null when it may be reached. */
function forbiddenKind(address: string): string | null {
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is the IPv4 one.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (!FORBIDDEN.check(ip, family)) return null;
  if (/^127\./.test(ip) || ip === '::1') return 'a loopback address';
  if (/^169\.254\./.test(ip) || /^fe[89ab]/i.test(ip)) return 'a link-local address';
  return 'a private or reserved address';
}

/** The allow-list, ready to match: host names by name, addresses and ranges by address. */
export class AllowList {
  private readonly names: ReadonlySet<string>;
  private readonly ranges = new BlockList();

  constructor(readonly entries: readonly string[]) {
    this.names = new Set(entries.filter((e) => !isRange(e)));
    for (const e of entries.filter(isRange)) {
      const [address, bits] = e.split('/');
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.ranges.addAddress(address, family);
      else this.ranges.addSubnet(address, Number(bits), family);
    }
  }

  /** Why `address`, reached for `host`, is refused; null when it may be reached. */
  refusal(host: string, address: string): string | null {
    const kind = forbiddenKind(address);
    if (kind === null || this.names.has(host.toLowerCase())) return null;
    if (this.ranges.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')) return null;
    return `${address} is ${kind}, which HELP_WEBHOOK_ALLOW_HOSTS does not name`;
  }
}

/** The URL's host without the brackets of an IPv6 literal. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * What is wrong with a subscription's URL as written (null when nothing): not http(s), credentials in
 * it, or an address literal the allow-list does not name. Host names are checked again where it
 * counts, on the address they resolve to at each delivery (resolveTarget).
 */
export function urlProblem(raw: string, allow: AllowList): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http or https URL, not ${url.protocol.replace(/:$/, '')}`;
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  const host = hostOf(url);
  if (isIP(host) !== 0) {
    const refused = allow.refusal(host, host);
    if (refused !== null) return `is refused: ${refused}`;
  }
  return null;
}

/** A delivery refused before it was sent (the address is forbidden, or the name does not resolve). */
export class TargetRefused extends Error {}

/**
 * The address a delivery connects to: the host resolved once, every address it resolves to
 * checked, and the first one used for the connection itself, so a second resolution (a DNS
 * rebinding) cannot swap in an address that was not checked.
 */
export async function resolveTarget(host: string, allow: AllowList): Promise<{ address: string; family: 4 | 6 }> {
  const literal = isIP(host);
  let found: Array<{ address: string; family: number }>;
  if (literal !== 0) found = [{ address: host, family: literal }];
  else {
    try {
      found = await lookup(host, { all: true, verbatim: true });
    } catch (err) {
      throw new TargetRefused(`${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  for (const a of found) {
    const refused = allow.refusal(host, a.address);
    if (refused !== null) throw new TargetRefused(literal !== 0 ? refused : `${host} resolves to ${refused}`);
  }
  if (found.length === 0) throw new TargetRefused(`${host} resolves to no address`);
  return { address: found[0].address, family: found[0].family === 6 ? 6 : 4 };
}
