// Renders the app and tray icons from the SVGs beside this script. Run after editing an SVG:
//   node build/make-icons.mjs
// The PNGs are committed, so packaging never needs this step.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const here = path.dirname(fileURLToPath(import.meta.url));
const appSvg = readFileSync(path.join(here, 'icon.svg'));
const traySvg = readFileSync(path.join(here, 'tray.svg'));
const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];

/** Rasterises at the target size (not scaled from a bitmap), so small icons stay sharp. */
async function render(svg, svgSize, size, file) {
  await sharp(svg, { density: (72 * size) / svgSize })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toFile(file);
}

mkdirSync(path.join(here, 'icons'), { recursive: true });
mkdirSync(path.join(here, 'tray'), { recursive: true });
await render(appSvg, 1024, 1024, path.join(here, 'icon.png'));
for (const size of LINUX_SIZES) await render(appSvg, 1024, size, path.join(here, 'icons', `${size}x${size}.png`));
// The tray glyph is black for macOS template images, and amber on Windows and Linux panels.
await render(traySvg, 32, 16, path.join(here, 'tray', 'trayTemplate.png'));
await render(traySvg, 32, 32, path.join(here, 'tray', 'trayTemplate@2x.png'));
const amberTray = Buffer.from(traySvg.toString('utf8').replaceAll('#000', '#f0a830'));
await render(amberTray, 32, 32, path.join(here, 'tray', 'tray.png'));
console.log('icons written to', here);
