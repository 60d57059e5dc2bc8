import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { lanAddresses, lanServerUrls, servesLan } from './lanAddresses.js';

const info = (address: string, internal = false, family: 'IPv4' | 'IPv6' = 'IPv4'): NetworkInterfaceInfo =>
  family === 'IPv4'
    ? { address, netmask: '255.255.255.0', family, mac: '00:00:00:00:00:00', internal, cidr: `${address}/24` }
    : { address, netmask: 'ffff:ffff:ffff:ffff::', family, mac: '00:00:00:00:00:00', internal, cidr: `${address}/64`, scopeid: 0 };

const interfaces = () => ({
  lo: [info('127.0.0.1', true), info('::1', true, 'IPv6')],
  eth0: [info('192.168.1.20'), info('fe80::1', false, 'IPv6')],
  wlan0: [info('169.254.3.4'), info('10.0.0.7'), info('192.168.1.20')],
});

describe('LAN addresses', () => {
  it('lists the IPv4 addresses other devices can reach, without loopback, link-local or duplicates', () => {
    expect(lanAddresses(interfaces)).toEqual([
      { interfaceName: 'eth0', address: '192.168.1.20' },
      { interfaceName: 'wlan0', address: '10.0.0.7' },
    ]);
  });

  it('gives URLs with the port, and none when the server listens on this computer only', () => {
    expect(lanServerUrls('0.0.0.0', 3001, interfaces)).toEqual([
      { interfaceName: 'eth0', url: 'http://192.168.1.20:3001' },
      { interfaceName: 'wlan0', url: 'http://10.0.0.7:3001' },
    ]);
    expect(lanServerUrls('127.0.0.1', 3001, interfaces)).toEqual([]);
    expect(lanServerUrls('10.0.0.7', 3001, interfaces)).toEqual([{ interfaceName: 'wlan0', url: 'http://10.0.0.7:3001' }]);
    expect(servesLan('localhost')).toBe(false);
    expect(servesLan('::')).toBe(true);
  });
});
