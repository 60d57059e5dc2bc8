import { z } from 'zod';
import { enabled, key, priority, serviceUrl } from '../../settings/fields.js';

/**
 * slskd's settings block, `integrations.slskd`: the slskd descriptor (slskd.ts) names it, and
 * settings/schema.ts takes it from the list in settings.ts. A leaf (zod and shared fields only), so
 * the schema can read it while the source reads the `Settings` type inferred from that schema.
 */
export const slskdSettings = {
  slskd: z
    .object({
      url: serviceUrl,
      apiKey: key,
      enabled,
      priority: priority(10),
      /** Where this computer sees slskd's downloads folder; empty: the confirmed folder below. */
      downloadPath: z.string().max(4096).default(''),
      /**
       * The downloads folder slskd reported when an administrator pressed Test with `downloadPath`
       * empty (and this computer could read it); with `downloadPath` empty, files are taken only from here.
       */
      confirmedDownloadPath: z.string().max(4096).default(''),
    })
    .strict(),
};
