import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import QRCode from 'qrcode';
import { lanAddresses as serverLanAddresses, lanServerUrls as serverLanServerUrls } from '../server/domain/network/lanAddresses.js';

export type NetworkInterfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

export type { LanAddress } from '../server/domain/network/lanAddresses.js';

/** IPv4 addresses other devices on the LAN reach this computer at: the server's own rule. */
export function lanAddresses(interfaces: NetworkInterfaces = networkInterfaces()) {
  return serverLanAddresses(() => interfaces);
}

/** URLs phones and other computers use; none when the server listens on this computer only. */
export function lanServerUrls(bindAddress: string, port: number, interfaces: NetworkInterfaces = networkInterfaces()): string[] {
  return serverLanServerUrls(bindAddress, port, () => interfaces).map((u) => u.url);
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
