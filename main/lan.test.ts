import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { lanAddresses as serverLanAddresses, lanServerUrls as serverLanServerUrls } from '../server/domain/network/lanAddresses.js';
import { lanAddresses, lanQrCodeDataUrl, lanQrCodeSvg, lanServerUrls, type NetworkInterfaces } from './lan.js';

function ipv4(address: string, internal = false): NetworkInterfaceInfo {
  return { address, netmask: '255.255.255.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal, cidr: null };
}

function ipv6(address: string): NetworkInterfaceInfo {
  return { address, netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '00:00:00:00:00:00', internal: false, cidr: null, scopeid: 0 };
}

const interfaces: NetworkInterfaces = {
  lo: [ipv4('127.0.0.1', true), { ...ipv6('::1'), internal: true }],
  eth0: [ipv4('192.168.1.20'), ipv6('fe80::1')],
  wlan0: [ipv4('10.0.0.7'), ipv4('169.254.10.3')],
  docker0: [ipv4('192.168.1.20')],
};

describe('lanAddresses', () => {
  it('lists the non-internal, non-link-local IPv4 addresses once each, by interface', () => {
    expect(lanAddresses(interfaces)).toEqual([
      { interfaceName: 'eth0', address: '192.168.1.20' },
      { interfaceName: 'wlan0', address: '10.0.0.7' },
    ]);
  });

  it('is empty on a computer with only loopback', () => {
    expect(lanAddresses({ lo: [ipv4('127.0.0.1', true)] })).toEqual([]);
  });
});

describe('lanServerUrls', () => {
  it('gives one URL per LAN address when the server listens on all interfaces', () => {
    expect(lanServerUrls('0.0.0.0', 3001, interfaces)).toEqual(['http://192.168.1.20:3001', 'http://10.0.0.7:3001']);
  });

  it('gives none when the server listens on this computer only', () => {
    expect(lanServerUrls('127.0.0.1', 3001, interfaces)).toEqual([]);
  });
});

describe('LAN QR codes', () => {
  it('draws the URL as an SVG QR code (version 2, 25 modules plus a 1-module margin)', async () => {
    const svg = await lanQrCodeSvg('http://192.168.1.20:3001');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 27 27"')).toBe(true);
    expect(await lanQrCodeSvg('http://192.168.1.20:3001')).toBe(svg);
    expect(await lanQrCodeSvg('http://10.0.0.7:3001')).not.toBe(svg);
  });

  it('draws the URL as a 256x256 PNG data URL', async () => {
    const dataUrl = await lanQrCodeDataUrl('http://192.168.1.20:3001');
    expect(dataUrl.startsWith('data:image/png;base64,')).toBe(true);
    const png = Buffer.from(dataUrl.slice('data:image/png;base64,'.length), 'base64');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
  });
});

describe("the shell's copy of the server's LAN rule", () => {
  it('gives the same addresses and URLs as the server for every bind address', () => {
    const cases: NetworkInterfaces[] = [interfaces, { lo: [ipv4('127.0.0.1', true)] }, { eth0: [ipv4('169.254.1.1'), ipv4('172.16.0.4')], en1: [ipv6('fe80::2')] }];
    for (const list of cases) {
      expect(lanAddresses(list)).toEqual(serverLanAddresses(() => list));
      for (const bind of ['0.0.0.0', '::', '', '127.0.0.1', 'localhost', '::1', '[::1]', '192.168.1.20', '10.0.0.7', '172.16.0.4', '10.9.9.9']) {
        expect(lanServerUrls(bind, 4533, list)).toEqual(serverLanServerUrls(bind, 4533, () => list).map((u) => u.url));
      }
    }
  });
});
