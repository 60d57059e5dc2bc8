import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import QRCode from 'qrcode';

export type NetworkInterfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

export interface LanAddress {
  interfaceName: string;
  address: string;
}

/*
 * The Electron shell runs beside the server, not inside it (main/ never imports server/), so it keeps
 * its own copy of the server's LAN rule (server/domain/network/lanAddresses.ts); main/lan.test.ts
 * checks that both give the same answers.
 */

/**
 * IPv4 addresses other devices on the LAN reach this computer at. Loopback and link-local
 * (169.254.x.x, no DHCP answer) addresses are left out: a phone could not use them.
 */
export function lanAddresses(interfaces: NetworkInterfaces = networkInterfaces()): LanAddress[] {
  const found: LanAddress[] = [];
  for (const [interfaceName, entries] of Object.entries(interfaces)) {
    for (const entry of entries ?? []) {
      if (entry.family !== 'IPv4' || entry.internal || entry.address.startsWith('169.254.')) continue;
      if (found.some((known) => known.address === entry.address)) continue;
      found.push({ interfaceName, address: entry.address });
    }
  }
  return found;
}

/** URLs phones and other computers use; none when the server listens on this computer only. */
export function lanServerUrls(bindAddress: string, port: number, interfaces: NetworkInterfaces = networkInterfaces()): string[] {
  if (/^(127\.|localhost$|::1$|\[::1\]$)/.test(bindAddress)) return [];
  // Bound to one address: only that one answers.
  const everywhere = bindAddress === '0.0.0.0' || bindAddress === '::' || bindAddress === '';
  return lanAddresses(interfaces)
    .filter(({ address }) => everywhere || address === bindAddress)
    .map(({ address }) => `http://${address}:${port}`);
}

const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 1 } as const;

/** A QR code of the URL as SVG markup, for the settings screen. */
export function lanQrCodeSvg(url: string): Promise<string> {
  return QRCode.toString(url, { ...QR_OPTIONS, type: 'svg' });
}

/** A QR code of the URL as a PNG data URL, for places that take an image. */
export function lanQrCodeDataUrl(url: string): Promise<string> {
  return QRCode.toDataURL(url, { ...QR_OPTIONS, type: 'image/png', width: 256 });
}
