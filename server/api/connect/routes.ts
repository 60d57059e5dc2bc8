import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { isUserAccount } from '../../domain/auth/principal.js';
import { lanServerUrls, servesLan } from '../../domain/network/lanAddresses.js';
import { defineRoute } from '../../http/route.js';

const connectInfo = z.object({
  /** Addresses other devices on the LAN reach this server at (http://<LAN IPv4>:<port>). */
  lanUrls: z.array(z.object({ interfaceName: z.string(), url: z.string() })),
  /** False when the server listens on this computer only (TONEARM_HOST=127.0.0.1). */
  listensOnLan: z.boolean(),
  /** The port this request arrived on. */
  port: z.number().int(),
  /** Where Subsonic-compatible apps call the server, relative to a server URL. */
  subsonicPath: z.literal('/rest'),
  /** The caller's user name, for the app's login form (null for the instance API key). */
  username: z.string().nullable(),
});

/** What a person needs to connect a Subsonic player app: the server's LAN addresses and their user name. */
export function connectRoutes(ctx: AppContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/connect',
      summary: "How to connect a player app: this server's LAN addresses, the Subsonic path and the caller's user name",
      tag: 'connect',
      access: 'authenticated',
      response: connectInfo,
      handler: ({ req, principal }) => {
        const port = req.socket.localPort ?? ctx.config.port;
        return {
          // What a player app is given: the address with the base path (TONEARM_BASE_PATH) it is served under.
          lanUrls: lanServerUrls(ctx.config.host, port, ctx.interfaces).map((u) => ({ ...u, url: u.url + ctx.config.basePath })),
          listensOnLan: servesLan(ctx.config.host),
          port,
          subsonicPath: '/rest' as const,
          username: principal && isUserAccount(principal) ? principal.username : null,
        };
      },
    }),
  ];
}
