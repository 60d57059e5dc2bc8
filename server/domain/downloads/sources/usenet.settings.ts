import { z } from 'zod';
import { enabled, key, priority, secret, serviceUrl } from '../../settings/fields.js';

/** Where this computer sees a download client's completed folder, when it differs from the path the client reports. */
const completedPath = z.string().max(4096).default('');
/**
 * The completed folder the client reported when an administrator pressed Test with `completedPath`
 * empty (and this computer could read it); with `completedPath` empty, files are taken only from here.
 */
const confirmedCompletedPath = z.string().max(4096).default('');

/**
 * Usenet's settings blocks, one per program (`integrations.prowlarr`, `.sabnzbd`, `.nzbget`): the
 * Usenet descriptor (usenet.ts) names them, and settings/schema.ts takes them from the list in
 * settings.ts. A leaf (zod and shared fields only), like slskd.settings.ts.
 */
export const usenetSettings = {
  /** Prowlarr: searches the user's Usenet indexers; its results are handed to SABnzbd or NZBGet. */
  prowlarr: z.object({ url: serviceUrl, apiKey: key, enabled }).strict(),
  sabnzbd: z
    .object({ url: serviceUrl, apiKey: key, enabled, priority: priority(20), category: z.string().max(256).default(''), completedPath, confirmedCompletedPath })
    .strict(),
  nzbget: z
    .object({
      url: serviceUrl,
      username: z.string().max(256).default(''),
      password: secret,
      enabled,
      priority: priority(20),
      category: z.string().max(256).default(''),
      completedPath,
      confirmedCompletedPath,
    })
    .strict(),
};
