import type { AppContext } from '../../context.js';
import type { RouteDefinition } from '../../http/route.js';
import { imageRoutes } from '../images/routes.js';
import { playEventRoutes } from '../play-events/routes.js';
import { identifyRoutes } from './identify.js';
import { libraryRoutes } from './routes.js';

/** The canonical library's routes: api.md §4.5 (read side, media), §4.14 play events, §4.16 images. */
export function libraryArea(ctx: AppContext): RouteDefinition[] {
  return [...libraryRoutes(ctx), ...identifyRoutes(ctx), ...playEventRoutes(ctx), ...imageRoutes(ctx)];
}

export { startLibrary } from '../../domain/library/service.js';
export { startIdentify } from '../../domain/library/identify.js';
