import type { RestCall, RestMethod } from '../context.js';
import { notAuthorized, notFound } from '../errors.js';
import { parseRowId } from '../ids.js';
import { podcastChannel, podcastEpisode } from '../serialize.js';
import type { Payload } from '../wire.js';

function adminOnly(call: RestCall): void {
  if (call.user.role !== 'admin') throw notAuthorized('Only administrators can manage podcasts');
}

function channelId(raw: string): number {
  const id = parseRowId('podcastChannel', raw);
  if (id === null) throw notFound('Podcast channel not found');
  return id;
}

function episodeId(call: RestCall): number {
  const id = parseRowId('podcastEpisode', call.params.required('id'));
  if (id === null) throw notFound('Podcast episode not found');
  return id;
}

/** A downloaded episode's file for `stream` and `download`; null when `raw` is not an episode id. */
export function podcastEpisodeFile(
  call: RestCall,
  raw: string,
): { file: string; mime: string; name: string; durationSeconds: number | null; bitrate: number | null } | null {
  const id = parseRowId('podcastEpisode', raw);
  if (id === null) return null;
  const found = call.rc.podcasts.fileOf(id);
  if (!found) throw notFound('The podcast episode is not downloaded');
  const ext = found.file.slice(found.file.lastIndexOf('.'));
  const name = `${found.episode.channel_title ?? 'Podcast'} - ${found.episode.title}`.replace(/[/\\:*?"<>|\u0000-\u001f]/g, '_') + ext;
  return { file: found.file, mime: found.mime, name, durationSeconds: found.episode.duration_seconds, bitrate: found.episode.bitrate };
}

function getPodcasts(call: RestCall): Payload {
  const withEpisodes = call.params.bool('includeEpisodes', true);
  const id = call.params.string('id');
  const podcasts = call.rc.podcasts;
  const channels = id ? [podcasts.channel(channelId(id))] : podcasts.channels();
  return { podcasts: { channel: channels.map((c) => podcastChannel(c, withEpisodes ? podcasts.episodesOf(c.id) : undefined)) } };
}

function getNewestPodcasts(call: RestCall): Payload {
  const count = call.params.int('count', 20, { min: 0, max: 500 });
  return { newestPodcasts: { episode: call.rc.podcasts.newest(count).map(podcastEpisode) } };
}

export const podcastMethods: RestMethod[] = [
  { name: 'getPodcasts', handler: getPodcasts },
  { name: 'getNewestPodcasts', handler: getNewestPodcasts },
  { name: 'getPodcastEpisode', handler: (call) => ({ podcastEpisode: podcastEpisode(call.rc.podcasts.episode(episodeId(call))) }) },
  {
    name: 'createPodcastChannel',
    handler: async (call) => {
      adminOnly(call);
      await call.rc.podcasts.subscribe(call.params.required('url'));
      return undefined;
    },
  },
  {
    name: 'refreshPodcasts',
    handler: (call) => {
      adminOnly(call);
      // Feeds can be slow: answer at once, as other servers do; channel status shows the outcome.
      void call.rc.podcasts.refreshAll();
      return undefined;
    },
  },
  {
    name: 'deletePodcastChannel',
    handler: (call) => {
      adminOnly(call);
      call.rc.podcasts.deleteChannel(channelId(call.params.required('id')));
      return undefined;
    },
  },
  {
    name: 'downloadPodcastEpisode',
    handler: (call) => {
      adminOnly(call);
      call.rc.podcasts.download(episodeId(call));
      return undefined;
    },
  },
  {
    name: 'deletePodcastEpisode',
    handler: (call) => {
      adminOnly(call);
      call.rc.podcasts.deleteEpisode(episodeId(call));
      return undefined;
    },
  },
];
