import type { Answer } from '../wire.js';
import type { FieldSpec, SourceSpec } from './SourceCard';

/**
 * The download-source cards of Settings → Downloads, read from the server's one list of sources
 * (server/domain/downloads/sources/index.ts) as its answers show it: GET /api/health names each
 * source (`downloadSources`, in list order) and GET /api/settings/download-clients lists the
 * programs each is configured by, with their settings fields. A source the UI has no words of its
 * own for still gets a card, built from those fields.
 */

/** An entry of GET /api/settings/download-clients. */
export type DownloadClient = Answer<'/api/settings/download-clients'>['clients'][number];

/** `downloadSources` of GET /api/health. */
export type HealthSources = NonNullable<Answer<'/api/health'>['downloadSources']>;

/** How the UI presents a source it knows: the sentence under its title and its programs' tailored specs. */
export interface SourceWords {
  intro: string;
  specs: Record<string, SourceSpec>;
}

export interface SourceCardModel {
  id: string;
  /** The card's element id (`source-<id>`): what error messages link to. */
  anchor: string;
  title: string;
  intro: string;
  specs: SourceSpec[];
}

const KINDS: Record<string, FieldSpec['kind']> = { url: 'url', secret: 'password', number: 'number' };

/**
 * A card spec from the server's description of a program: its fields (the switch, the priority and
 * the folder the server confirms itself are the card's own), its test, and its required fields.
 */
export function genericSpec(client: DownloadClient): SourceSpec {
  const shown = client.fields.filter((f) => f.type !== 'boolean' && f.key !== 'priority' && !/^confirmed/.test(f.key));
  return {
    key: client.key,
    name: client.label,
    fields: shown.map((f) => ({ key: f.key, label: f.label, kind: KINDS[f.type] ?? 'text' })),
    priority: client.fields.some((f) => f.key === 'priority'),
    test: client.testPath.replace(/^\/api\/settings\/|\/test$/g, ''),
    testFields: shown.filter((f) => f.type === 'url' || f.type === 'secret' || f.type === 'path').map((f) => f.key),
    needs: client.fields.filter((f) => f.required).map((f) => f.key),
  };
}

/** One card per source, in the server's order; each program with the UI's own spec when it has one. */
export function sourceCards(sources: HealthSources, clients: DownloadClient[], words: Record<string, SourceWords>): SourceCardModel[] {
  return Object.values(sources).map(({ id, label }) => {
    const own = words[id];
    return {
      id,
      anchor: `source-${id}`,
      title: label,
      intro: own?.intro ?? '',
      specs: clients.filter((c) => c.source === id).map((c) => own?.specs[c.key] ?? genericSpec(c)),
    };
  });
}
