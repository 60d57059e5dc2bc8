import { slskdSettings } from './slskd.settings.js';
import { usenetSettings } from './usenet.settings.js';
import { ytdlpSettings } from './ytdlp.settings.js';

/**
 * The settings blocks of every download client (`integrations.<client key>`), one entry per source
 * of DOWNLOAD_SOURCES (index.ts) and in its order; settings/schema.ts spreads them into
 * `integrations`. A leaf list: the sources read the `Settings` type inferred from that schema, so
 * the schema cannot import index.ts. Each descriptor names its own blocks (`settings`);
 * test/architecture/download-sources.test.ts fails when a client has no block here or a block has
 * no client.
 */
export const DOWNLOAD_CLIENT_SETTINGS = { ...slskdSettings, ...usenetSettings, ...ytdlpSettings };

