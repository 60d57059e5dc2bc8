import os from 'node:os';
import net from 'node:net';

export type LanBypassReason =
  | 'active'
  | 'disabled'
  | 'not_onboarded'
  | 'not_single_user'
  | 'sole_user_not_admin'
  | 'not_trusted_network';

export interface LanBypassStatus {
  enabled: boolean;
  eligible: boolean;
  active: boolean;
  reason: LanBypassReason;
}

export type InterfaceLister = () => NodeJS.Dict<os.NetworkInterfaceInfo[]>;

const PRIVATE_V4 = [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const;

const toInt = (ip: string) => ip.split('.').reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
const maskBits = (bits: number) => (bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0);
const inSubnet = (ip: string, base: string, bits: number) => (toInt(ip) & maskBits(bits)) === (toInt(base) & maskBits(bits));

export function normalizeIp(ip: string | undefined): string {
  if (!ip) return '';
  return ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
}

export function isLoopback(ip: string): boolean {
  const v = normalizeIp(ip);
  return v === '::1' || (net.isIPv4(v) && v.startsWith('127.'));
}

/** The private IPv4 subnets this computer sits on (non-internal interfaces only). */
export function privateSubnets(list: InterfaceLister = os.networkInterfaces): { base: string; bits: number }[] {
  const out: { base: string; bits: number }[] = [];
  for (const infos of Object.values(list())) {
    for (const info of infos ?? []) {
      if (info.family !== 'IPv4' || info.internal || !info.cidr) continue;
      if (!PRIVATE_V4.some(([base, bits]) => inSubnet(info.address, base, bits))) continue;
      const bits = Number(info.cidr.split('/')[1]);
      out.push({ base: info.address, bits });
    }
  }
  return out;
}

/** True when the address is this computer or a neighbour on its private LAN. */
export function isTrustedLanAddress(ip: string, list?: InterfaceLister): boolean {
  const v = normalizeIp(ip);
  if (isLoopback(v)) return true;
  if (!net.isIPv4(v)) return false;
  return privateSubnets(list).some((s) => inSubnet(v, s.base, s.bits));
}
