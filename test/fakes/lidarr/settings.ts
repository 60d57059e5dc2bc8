/**
 * Root folders, quality and metadata profiles and tags, shaped as Lidarr serves them. Kept as plain
 * JSON-ready objects: tests may edit them freely.
 */
export interface RootFolderRecord {
  id: number;
  name: string;
  path: string;
  defaultMetadataProfileId: number;
  defaultQualityProfileId: number;
  defaultMonitorOption: string;
  defaultNewItemMonitorOption: string;
  defaultTags: number[];
  accessible: boolean;
  freeSpace: number;
  totalSpace: number;
}

export interface TagRecord {
  id: number;
  label: string;
}

export function defaultRootFolder(path: string, id = 1): RootFolderRecord {
  return {
    id,
    name: path.split(/[\\/]/).filter(Boolean).pop() ?? 'Music',
    path,
    defaultMetadataProfileId: 1,
    defaultQualityProfileId: 1,
    defaultMonitorOption: 'all',
    defaultNewItemMonitorOption: 'all',
    defaultTags: [],
    accessible: true,
    freeSpace: 512 * 1024 ** 3,
    totalSpace: 2 * 1024 ** 4,
  };
}

const qualities = [
  { id: 1, name: 'MP3-192' },
  { id: 2, name: 'MP3-VBR-V0' },
  { id: 3, name: 'MP3-256' },
  { id: 4, name: 'MP3-320' },
  { id: 6, name: 'FLAC' },
  { id: 7, name: 'ALAC' },
];

function qualityProfile(id: number, name: string, allowedIds: number[], cutoff: number) {
  return {
    id,
    name,
    upgradeAllowed: true,
    cutoff,
    items: qualities.map((q) => ({ quality: q, items: [], allowed: allowedIds.includes(q.id) })),
    minFormatScore: 0,
    cutoffFormatScore: 0,
    formatItems: [],
  };
}

export function defaultQualityProfiles() {
  return [
    qualityProfile(1, 'Any', [1, 2, 3, 4, 6, 7], 6),
    qualityProfile(2, 'Lossless', [6, 7], 6),
    qualityProfile(3, 'Standard', [2, 4], 4),
  ];
}

const primaryTypes = ['Album', 'EP', 'Single', 'Broadcast', 'Other'];
const secondaryTypes = ['Studio', 'Compilation', 'Soundtrack', 'Spokenword', 'Interview', 'Live', 'Remix', 'DJ-mix', 'Mixtape/Street', 'Demo', 'Audio drama'];
const releaseStatuses = ['Official', 'Promotion', 'Bootleg', 'Pseudo-Release'];

function metadataProfile(id: number, name: string, allowedPrimary: string[]) {
  return {
    id,
    name,
    primaryAlbumTypes: primaryTypes.map((t, i) => ({ albumType: { id: i, name: t }, allowed: allowedPrimary.includes(t) })),
    secondaryAlbumTypes: secondaryTypes.map((t, i) => ({ albumType: { id: i, name: t }, allowed: t === 'Studio' })),
    releaseStatuses: releaseStatuses.map((t, i) => ({ releaseStatus: { id: i, name: t }, allowed: t === 'Official' })),
  };
}

export function defaultMetadataProfiles() {
  return [metadataProfile(1, 'Standard', ['Album', 'EP']), metadataProfile(2, 'None', [])];
}

export function systemStatus(instanceName: string, urlBase: string, startTime: string) {
  return {
    appName: 'Lidarr',
    instanceName,
    version: '2.14.5.4836',
    buildTime: '2025-10-01T12:00:00Z',
    isDebug: false,
    isProduction: true,
    isAdmin: false,
    isUserInteractive: false,
    startupPath: '/app/lidarr/bin',
    appData: '/config',
    osName: 'ubuntu',
    osVersion: '24.04',
    isNetCore: true,
    isLinux: true,
    isOsx: false,
    isWindows: false,
    isDocker: true,
    mode: 'console',
    branch: 'master',
    databaseType: 'sqLite',
    databaseVersion: '3.46.1',
    authentication: 'forms',
    migrationVersion: 81,
    urlBase,
    runtimeVersion: '8.0.12',
    runtimeName: '.NET',
    startTime,
    packageVersion: '2.14.5.4836',
    packageAuthor: 'hotio',
    packageUpdateMechanism: 'docker',
  };
}
