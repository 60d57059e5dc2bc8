import type { Principal } from './auth/principal.js';

/** The /ws channels a client can subscribe to. */
export const channels = ['status', 'downloads', 'discovery', 'library', 'weekly-flow', 'playlists'] as const;
export type Channel = (typeof channels)[number];

export interface BroadcastOptions {
  /** Change detection is per (channel, type, key): a repeat of the last payload is not sent. */
  key?: string;
  /** Only clients for whom this returns true receive it (per-audience messages). */
  audience?: (principal: Principal) => boolean;
}

/**
 * What services may tell connected clients, and how many listen: the port the domain publishes
 * through. The /ws hub (server/ws/hub.ts) implements it.
 */
export interface Broadcaster {
  broadcast(channel: Channel, type: string, payload?: Record<string, unknown>, options?: BroadcastOptions): number;
  subscriberCount(channel: Channel): number;
  listeners(chs: Channel[]): Principal[];
  onSubscriptionChange(listener: (channel: Channel, count: number) => void): () => void;
  stats(): HubStats;
}

export interface HubStats {
  totalClients: number;
  channels: Record<string, number>;
  /** Seconds since the hub started. */
  uptime: number;
}
