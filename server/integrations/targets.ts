import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';

/**
 * Which addresses an outgoing request may connect to. Link-local and cloud metadata addresses are
 * never allowed: nothing a user configures lives there, and the metadata service hands out the
 * host's cloud credentials. Private and loopback addresses are allowed for services the user runs
 * on the LAN (`'lan'`), and otherwise only for the hosts on the allow-list (ALLOW_PRIVATE_TARGETS).
 */
export type PrivateTargets = 'lan' | readonly string[];

/** The address may not be connected to; the message says why and what to do. */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
}

function ranges(v4: ReadonlyArray<readonly [string, number]>, v6: ReadonlyArray<readonly [string, number]>): net.BlockList {
  const list = new net.BlockList();
  for (const [prefix, bits] of v4) list.addSubnet(prefix, bits, 'ipv4');
  for (const [prefix, bits] of v6) list.addSubnet(prefix, bits, 'ipv6');
  return list;
}

const privateRanges = ranges(
  [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ],
  [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]],
);

/** Link-local (where the metadata services of AWS, GCP and Azure live) and the other clouds' metadata addresses. */
const neverRanges = ranges(
  [['169.254.0.0', 16], ['100.100.100.200', 32], ['192.0.0.192', 32], ['224.0.0.0', 4], ['255.255.255.255', 32]],
  [['fe80::', 10], ['fd00:ec2::254', 128], ['ff00::', 8]],
);

/** An IPv4 address carried inside IPv6 (mapped `::ffff:a.b.c.d`, or NAT64 `64:ff9b::/96`), else null. */
function embeddedIpv4(address: string): string | null {
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

function inRanges(list: net.BlockList, address: string, unparsable: boolean): boolean {
  const v4 = embeddedIpv4(address);
  if (v4) return list.check(v4, 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return unparsable;
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Loopback, private, link-local, carrier-grade NAT, multicast or unspecified (IPv4-mapped too). */
export function isPrivateAddress(address: string): boolean {
  return inRanges(privateRanges, address, true);
}

/** Link-local, cloud metadata or multicast: refused whatever the allow-list says. */
export function isNeverAllowedAddress(address: string): boolean {
  return inRanges(neverRanges, address, true);
}

/** The host of a URL without IPv6 brackets, lower case. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Query strings carry credentials for some services (apikey, Subsonic tokens); keep them out of messages. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Normalised allow-list entries (hosts or addresses, brackets stripped). */
export function allowListOf(policy: PrivateTargets): Set<string> | 'lan' {
  if (policy === 'lan') return 'lan';
  return new Set(policy.map((h) => h.trim().replace(/^\[|\]$/g, '').toLowerCase()).filter(Boolean));
}

/** Why `url` may not connect to `address`, or null when it may. */
export function refusalFor(url: URL, address: string, allowed: Set<string> | 'lan'): TargetRefusedError | null {
  const host = hostOf(url);
  const what = host === address ? address : `${host} (${address})`;
  const shown = redactUrl(url.href);
  if (isNeverAllowedAddress(address)) {
    return new TargetRefusedError(`Refusing to connect to ${shown}: ${what} is a link-local or cloud metadata address, which is never allowed`);
  }
  if (allowed === 'lan' || !isPrivateAddress(address) || allowed.has(address) || allowed.has(host)) return null;
  return new TargetRefusedError(
    `Refusing to fetch ${shown}: ${what} is a private or loopback address. Add "${host}" to ALLOW_PRIVATE_TARGETS to allow it.`,
  );
}

type Resolve = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/**
 * A socket lookup that checks every address a name resolves to, so a name cannot resolve to an
 * allowed address for the check and a refused one for the connection.
 */
export function guardedLookup(url: URL, allowed: Set<string> | 'lan', resolve: Resolve = dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, list) => {
      if (err) return callback(err, '', 0);
      for (const a of list) {
        const refused = refusalFor(url, a.address, allowed);
        if (refused) return callback(refused, '', 0);
      }
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
