import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ConflictError } from '../../domain/errors.js';
import { lanIneligibilityMessage } from '../../domain/auth/lanBypassReasons.js';
import { maskedView } from '../../domain/settings/maskedView.js';
import { librarySettings, settingsSchema } from '../../domain/settings/schema.js';
import { maskSecrets } from '../../domain/settings/store.js';
import { defineRoute } from '../../http/route.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Drops the read-only parts of a settings answer sent back as-is, so they never become stored settings. */
function withoutReadOnly(body: Json): Json {
  const { onboardingComplete: _ignored, environment: _environment, ...patch } = body;
  if (!isObject(patch.library) || !('environmentMusicFolders' in patch.library)) return patch;
  const { environmentMusicFolders: _fromEnv, ...library } = patch.library;
  return { ...patch, library };
}

export function settingsRoutes(ctx: AppContext) {
  const view = () => {
    const settings = maskSecrets(ctx.settings.get());
    return {
      ...settings,
      library: { ...settings.library, environmentMusicFolders: ctx.config.musicDirs },
      onboardingComplete: ctx.auth.isOnboarded(),
      environment: { metadataUrl: ctx.config.upstreams.metadata },
    };
  };
  const response = maskedView(settingsSchema.extend({
    library: librarySettings.extend({
      /** Read-only: the folders of TONEARM_MUSIC_DIRS, scanned besides musicFolders; ignored when sent back. */
      environmentMusicFolders: z.array(z.string()),
    }),
    onboardingComplete: z.boolean(),
    /** Read-only: what environment variables set that the settings would otherwise hold; ignored when sent back. */
    environment: z.object({
      metadataUrl: z.string().nullable().describe('TONEARM_METADATA_URL: the metadata server used while integrations.metadata.baseUrl is empty'),
    }),
  }));
  return [
    defineRoute({
      method: 'get',
      path: '/api/settings',
      summary: 'Read settings (secrets masked; library.environmentMusicFolders are the read-only TONEARM_MUSIC_DIRS, environment.metadataUrl the read-only TONEARM_METADATA_URL)',
      tag: 'settings',
      access: 'admin',
      response,
      handler: view,
    }),
    defineRoute({
      method: 'post',
      path: '/api/settings',
      summary: 'Validate and merge settings; a masked secret sent back keeps the stored one, read-only fields are ignored',
      tag: 'settings',
      access: 'admin',
      body: z.record(z.string(), z.unknown()),
      response,
      handler: ({ body }) => {
        const patch = withoutReadOnly(body);
        const next = ctx.settings.preview(patch);
        const wasOn = ctx.settings.get().security.localNetworkBypass.enabled;
        if (next.security.localNetworkBypass.enabled && !wasOn) {
          const reason = ctx.auth.ineligibility();
          if (reason) throw new ConflictError(lanIneligibilityMessage(reason), reason.toUpperCase());
        }
        ctx.settings.update(patch);
        if (wasOn && !next.security.localNetworkBypass.enabled) ctx.hub.closeVia('lan');
        return view();
      },
    }),
  ];
}
