import fs from 'node:fs';
import type { SettingsStore } from '../settings/store.js';
import { IntegrationError } from '../../integrations/errors.js';
import type { LidarrClient, MetadataProfile, QualityProfile } from '../../integrations/lidarr/index.js';
import { mapLidarrPath, type PathMapping } from '../../library/lidarrPaths.js';

/** The settings screen's Lidarr checks: connection, library access through path mappings, recommended profiles. */

export async function testLidarr(client: LidarrClient) {
  const status = await client.testConnection();
  return {
    success: true as const,
    version: status.version,
    instanceName: status.instanceName,
    message: `Connected to ${status.instanceName} ${status.version}`,
  };
}

export interface RootFolderAccess {
  path: string;
  localPath: string;
  accessible: boolean;
  reason: string | null;
}

/** Can this computer read Lidarr's root folders (after the path mappings)? Streaming depends on it. */
export async function testLibraryAccess(client: LidarrClient, mappings: readonly PathMapping[]) {
  const folders = await client.rootFolders();
  const rootFolders: RootFolderAccess[] = folders.map((folder) => {
    const localPath = mapLidarrPath(folder.path, mappings);
    try {
      if (!fs.statSync(localPath).isDirectory()) return { path: folder.path, localPath, accessible: false, reason: 'not a folder' };
      fs.accessSync(localPath, fs.constants.R_OK);
      return { path: folder.path, localPath, accessible: true, reason: null };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const reason =
        code === 'ENOENT'
          ? 'folder not found on this computer; add a path mapping from Lidarr\'s path to where it is mounted here'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : String((err as Error).message);
      return { path: folder.path, localPath, accessible: false, reason };
    }
  });
  const success = rootFolders.length > 0 && rootFolders.every((f) => f.accessible);
  const message =
    rootFolders.length === 0
      ? 'Lidarr has no root folder'
      : success
        ? 'Every Lidarr root folder is readable here'
        : `Not readable here: ${rootFolders.filter((f) => !f.accessible).map((f) => `${f.localPath} (${f.reason})`).join('; ')}`;
  return { success, message, rootFolders, pathMappings: [...mappings] };
}

export const GUIDE_QUALITY_PROFILE = 'Tonearm: lossless preferred';
export const GUIDE_METADATA_PROFILE = 'Tonearm: studio albums and EPs';

export interface GuideStep {
  item: 'qualityProfile' | 'metadataProfile' | 'defaults' | 'naming';
  action: 'created' | 'existing' | 'updated' | 'failed' | 'skipped';
  id?: number;
  name?: string;
  message: string;
}

type QualityItem = { quality?: { id: number; name?: string | null }; items?: QualityItem[]; allowed: boolean; id?: number; name?: string };
type TypeItem = { albumType?: { id: number; name: string }; releaseStatus?: { id: number; name: string }; allowed: boolean };

const wantedQuality = (name: string) => /^(FLAC|ALAC|FLAC 24bit|ALAC 24bit|MP3-320)$/i.test(name);
const namesIn = (item: QualityItem): string[] => [item.quality?.name ?? '', item.name ?? '', ...(item.items ?? []).flatMap(namesIn)];

/**
 * Applies the recommended Lidarr setup for a music library: a quality profile that prefers FLAC and
 * accepts MP3-320, upgrading until FLAC; a metadata profile of official studio albums and EPs; and
 * both as this service's defaults. Profiles are built from Lidarr's own lists (so every quality and
 * type Lidarr knows is present) and reused when they already exist. Each step reports what happened.
 */
export async function applyCommunityGuide(client: LidarrClient, settings: SettingsStore) {
  const steps: GuideStep[] = [];
  const [qualityProfiles, metadataProfiles] = await Promise.all([client.qualityProfiles(), client.metadataProfiles()]);

  const quality = await ensureProfile(steps, 'qualityProfile', GUIDE_QUALITY_PROFILE, qualityProfiles, async (template) => {
    const items = ((template.items ?? []) as QualityItem[]).map((item) => ({ ...item, allowed: namesIn(item).some(wantedQuality) }));
    const cutoffItem = items.find((item) => namesIn(item).some((n) => /^FLAC$/i.test(n)));
    const cutoff = cutoffItem?.quality?.id ?? cutoffItem?.id;
    if (cutoff === undefined) throw new Error("Lidarr's quality list has no FLAC quality");
    const { id: _id, ...rest } = template;
    return client.createQualityProfile({ ...rest, name: GUIDE_QUALITY_PROFILE, upgradeAllowed: true, cutoff, items } as Omit<QualityProfile, 'id'>);
  });

  const metadata = await ensureProfile(steps, 'metadataProfile', GUIDE_METADATA_PROFILE, metadataProfiles, async (template) => {
    const allow = (list: unknown, names: string[]) =>
      ((list ?? []) as TypeItem[]).map((t) => ({ ...t, allowed: names.includes((t.albumType ?? t.releaseStatus)?.name ?? '') }));
    const { id: _id, ...rest } = template;
    return client.createMetadataProfile({
      ...rest,
      name: GUIDE_METADATA_PROFILE,
      primaryAlbumTypes: allow(template.primaryAlbumTypes, ['Album', 'EP']),
      secondaryAlbumTypes: allow(template.secondaryAlbumTypes, ['Studio']),
      releaseStatuses: allow(template.releaseStatuses, ['Official']),
    } as Omit<MetadataProfile, 'id'>);
  });

  const patch: Record<string, number> = {};
  if (quality) patch.qualityProfileId = quality.id;
  if (metadata) patch.metadataProfileId = metadata.id;
  if (Object.keys(patch).length > 0) {
    settings.update({ integrations: { lidarr: patch } });
    steps.push({ item: 'defaults', action: 'updated', message: `New artists use ${Object.keys(patch).join(' and ')} ${Object.values(patch).join(' and ')}` });
  }
  steps.push({
    item: 'naming',
    action: 'skipped',
    message: "File naming is left as configured in Lidarr; this service reads Lidarr's paths whatever the format",
  });
  const success = steps.every((s) => s.action !== 'failed');
  return {
    success,
    applied: steps,
    qualityProfileId: quality?.id ?? null,
    metadataProfileId: metadata?.id ?? null,
    message: success ? 'Recommended Lidarr settings applied' : steps.filter((s) => s.action === 'failed').map((s) => s.message).join('; '),
  };
}

async function ensureProfile<T extends { id: number; name: string }>(
  steps: GuideStep[],
  item: 'qualityProfile' | 'metadataProfile',
  name: string,
  existing: T[],
  create: (template: T) => Promise<T>,
): Promise<T | null> {
  const found = existing.find((p) => p.name.toLowerCase() === name.toLowerCase());
  if (found) {
    steps.push({ item, action: 'existing', id: found.id, name: found.name, message: `${name} already exists in Lidarr` });
    return found;
  }
  const template = existing[0];
  if (!template) {
    steps.push({ item, action: 'failed', name, message: `Lidarr lists no ${item} to start from` });
    return null;
  }
  try {
    const made = await create(template);
    steps.push({ item, action: 'created', id: made.id, name: made.name, message: `Created ${name} in Lidarr` });
    return made;
  } catch (err) {
    // Lidarr unreachable is the caller's 502; a refusal is reported in the step.
    if (err instanceof IntegrationError && err.kind !== 'bad_request' && err.kind !== 'not_found') throw err;
    steps.push({ item, action: 'failed', name, message: err instanceof Error ? err.message : String(err) });
    return null;
  }
}
