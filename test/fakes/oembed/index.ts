import { startJsonFake, type JsonFake } from '../http.js';

/**
 * An oEmbed provider on 127.0.0.1 (YouTube's `/oembed`, Tidal's `/`): `?url=<page>&format=json`
 * answers the page's registered title and author, 404 for an unknown page, 400 without a url.
 */
export interface OEmbedPage { title: string; author_name?: string; author_url?: string; type?: string }

export interface OEmbedFake extends JsonFake {
  pages: Map<string, OEmbedPage>;
}

export async function startOEmbedFake(path: string, providerName: string): Promise<OEmbedFake> {
  const fake = (await startJsonFake((req) => {
    if (req.path !== path) return { status: 404, body: 'Not Found' };
    const url = req.query.get('url');
    if (!url) return { status: 400, body: 'Bad Request' };
    const page = fake.pages.get(url);
    if (!page) return { status: 404, body: 'Not Found' };
    return { body: { version: '1.0', provider_name: providerName, type: page.type ?? 'rich', html: '<iframe></iframe>', width: 200, height: 113, ...page } };
  })) as OEmbedFake;
  fake.pages = new Map();
  return fake;
}
