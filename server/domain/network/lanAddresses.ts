import os from 'node:os';
import type { InterfaceLister } from '../auth/lanBypass.js';

export interface LanAddress {
  interfaceName: string;
  address: string;
}

/**
 * IPv4 addresses other devices on the LAN can reach this computer at. Loopback and link-local
 * (169.254.x.x, no DHCP answer) addresses are left out: a phone could not use them.
 */
export function lanAddresses(list: InterfaceLister = os.networkInterfaces): LanAddress[] {
  const found: LanAddress[] = [];
  for (const [interfaceName, entries] of Object.entries(list())) {
    for (const entry of entries ?? []) {
      if (entry.family !== 'IPv4' || entry.internal || entry.address.startsWith('169.254.')) continue;
      if (found.some((known) => known.address === entry.address)) continue;
      found.push({ interfaceName, address: entry.address });
    }
  }
  return found;
}

/** True when the bind address accepts connections from other computers. */
export function servesLan(bindHost: string): boolean {
  return !/^(127\.|localhost$|::1$|\[::1\]$)/.test(bindHost);
}

/** The addresses a player app on the LAN uses; none when the server listens on this computer only. */
export function lanServerUrls(bindHost: string, port: number, list?: InterfaceLister): { interfaceName: string; url: string }[] {
  if (!servesLan(bindHost)) return [];
  // Bound to one address: only that one answers.
  const everywhere = bindHost === '0.0.0.0' || bindHost === '::' || bindHost === '';
  return lanAddresses(list)
    .filter(({ address }) => everywhere || address === bindHost)
    .map(({ interfaceName, address }) => ({ interfaceName, url: `http://${address}:${port}` }));
}
