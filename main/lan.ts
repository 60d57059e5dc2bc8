import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import QRCode from 'qrcode';

export type NetworkInterfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

export interface LanAddress {
  interfaceName: string;
  address: string;
}

/**
 * IPv4 addresses other devices on the LAN can reach this computer at. Loopback and link-local
 * (169.254.x.x, no DHCP answer) addresses are left out: a phone could not use them.
 */
export function lanAddresses(interfaces: NetworkInterfaces = networkInterfaces()): LanAddress[] {
  const found: LanAddress[] = [];
  for (const [interfaceName, entries] of Object.entries(interfaces)) {
    for (const entry of entries ?? []) {
      // Node 18.0–18.3 reported the family as a number.
      const isIPv4 = entry.family === 'IPv4' || (entry.family as unknown) === 4;
      if (!isIPv4 || entry.internal || entry.address.startsWith('169.254.')) continue;
      if (found.some((known) => known.address === entry.address)) continue;
      found.push({ interfaceName, address: entry.address });
    }
  }
  return found;
}

/** URLs phones and other computers use; none when the server listens on this computer only. */
export function lanServerUrls(
  bindAddress: string,
  port: number,
  interfaces: NetworkInterfaces = networkInterfaces(),
): string[] {
  if (bindAddress === '127.0.0.1') return [];
  return lanAddresses(interfaces).map(({ address }) => `http://${address}:${port}`);
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
