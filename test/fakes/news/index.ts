import { startJsonFake, type FakeReply, type JsonFake, type SeenRequest } from '../http.js';

/**
 * A music publication's web server on 127.0.0.1: RSS 2.0 (`/feeds/news.rss`, with CDATA HTML,
 * `content:encoded`, `media:content`, `category`, relative links and `dc:creator`), Atom
 * (`/feeds/news.atom`), RSS 1.0 (`/feeds/news.rdf`), an ISO-8859-1 feed (`/feeds/latin1.xml`),
 * broken XML (`/feeds/broken.xml`), a huge feed (`/feeds/huge.xml`: 400 items, one with a
 * description of about 1 MB), an HTML page that is no feed (`/index.html`), article pages with
 * `og:image` (`/articles/<slug>`) and `/redirect?to=<url>` (302). `fake.documents` can be edited.
 */
export interface FakeNewsItem {
  title: string;
  /** Relative links are resolved by readers against the feed URL. */
  link: string;
  published: Date;
  description?: string;
  html?: string;
  categories?: string[];
  imageUrl?: string;
  author?: string;
  guid?: string;
}

export interface NewsFeedFake extends JsonFake {
  /** Path → document (body and content type). */
  documents: Map<string, { body: string | Buffer; contentType: string }>;
  items: FakeNewsItem[];
  feedUrl(path: string): string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const cdata = (s: string) => `<![CDATA[${s.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;

/** An RSS 2.0 document with the usual publication extensions. */
export function rssDocument(channel: { title: string; link: string }, items: FakeNewsItem[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
  <title>${esc(channel.title)}</title>
  <atom:link href="${esc(channel.link)}/feed/" rel="self" type="application/rss+xml" />
  <link>${esc(channel.link)}</link>
  <description>Music news, reviews and interviews</description>
  <language>en-US</language>
  <lastBuildDate>${new Date().toUTCString()}</lastBuildDate>
${items
  .map(
    (i) => `  <item>
    <title>${esc(i.title)}</title>
    <link>${esc(i.link)}</link>
    <guid isPermaLink="${i.guid ? 'false' : 'true'}">${esc(i.guid ?? i.link)}</guid>
    <pubDate>${i.published.toUTCString()}</pubDate>
${i.author ? `    <dc:creator>${cdata(i.author)}</dc:creator>\n` : ''}${(i.categories ?? []).map((c) => `    <category>${cdata(c)}</category>`).join('\n')}
    <description>${cdata(i.description ?? '')}</description>
${i.html ? `    <content:encoded>${cdata(i.html)}</content:encoded>\n` : ''}${i.imageUrl ? `    <media:content url="${esc(i.imageUrl)}" medium="image" width="1200" height="800" />\n` : ''}  </item>`,
  )
  .join('\n')}
</channel>
</rss>
`;
}

/** An Atom 1.0 document. */
export function atomDocument(feed: { title: string; link: string; id: string }, items: FakeNewsItem[]): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
  <title type="text">${esc(feed.title)}</title>
  <link rel="alternate" type="text/html" href="${esc(feed.link)}" />
  <link rel="self" type="application/atom+xml" href="${esc(feed.link)}/atom.xml" />
  <id>${esc(feed.id)}</id>
  <updated>${new Date().toISOString()}</updated>
${items
  .map(
    (i) => `  <entry>
    <title type="html">${esc(i.title)}</title>
    <link rel="alternate" type="text/html" href="${esc(i.link)}" />
    <id>${esc(i.guid ?? `tag:example.org,2026:${i.link}`)}</id>
    <published>${i.published.toISOString()}</published>
    <updated>${i.published.toISOString()}</updated>
${i.author ? `    <author><name>${esc(i.author)}</name></author>\n` : ''}${(i.categories ?? []).map((c) => `    <category term="${esc(c)}" />`).join('\n')}
    <summary type="html">${esc(i.description ?? '')}</summary>
${i.html ? `    <content type="html">${esc(i.html)}</content>\n` : ''}${i.imageUrl ? `    <media:thumbnail url="${esc(i.imageUrl)}" />\n` : ''}  </entry>`,
  )
  .join('\n')}
</feed>
`;
}

const hour = 3600_000;

export async function startNewsFeedFake(): Promise<NewsFeedFake> {
  const handler = (req: SeenRequest): FakeReply => {
    if (req.path === '/redirect') {
      const to = req.query.get('to') ?? '/';
      return { status: 302, headers: { location: to, 'content-type': 'text/html' }, body: `<a href="${esc(to)}">moved</a>` };
    }
    const article = /^\/articles\/([\w-]+)$/.exec(req.path);
    if (article) {
      const slug = article[1]!;
      return {
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: `<!doctype html><html><head><title>${slug}</title><meta property="og:title" content="${slug}"><meta property="og:image" content="${fake.url}/images/${slug}.jpg"><meta name="twitter:image" content="${fake.url}/images/${slug}-tw.jpg"></head><body><article><h1>${slug}</h1><p>Story.</p></article></body></html>`,
      };
    }
    const doc = fake.documents.get(req.path);
    if (!doc) return { status: 404, headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>Not found</title><h1>404</h1>' };
    return { headers: { 'content-type': doc.contentType }, body: doc.body };
  };
  const fake = (await startJsonFake(handler)) as NewsFeedFake;
  fake.feedUrl = (path) => `${fake.url}${path}`;
  fake.documents = new Map();
  const now = Date.now();
  fake.items = [
    {
      title: 'Aurora Lane announce new album “Glass Tide” & world tour',
      link: '/articles/aurora-lane-glass-tide',
      published: new Date(now - 2 * hour),
      description: '<p>The dream pop band <strong>Aurora Lane</strong> return with their third album &amp; a tour.</p>',
      html: `<p><img src="/images/aurora-lane.jpg" alt="Aurora Lane" /></p><p>The band return in March.</p>`,
      categories: ['News', 'Aurora Lane', 'Dream Pop'],
      author: 'Sam Writer',
    },
    {
      title: 'Velvet Static share video for “Hum”',
      link: `${'https://news.example.org'}/2026/11/velvet-static-hum`,
      published: new Date(now - 5 * hour),
      description: 'Watch the shoegaze quartet’s new clip.',
      categories: ['Video', 'Velvet Static'],
      imageUrl: 'https://news.example.org/wp-content/uploads/velvet-static.jpg',
      author: 'Alex Critic',
    },
    {
      title: 'The 50 best albums of the year so far',
      link: '/lists/best-albums-2026',
      published: new Date(now - 30 * hour),
      description: 'From Copper Moth to Low Orbit: our favourite records of 2026.',
      categories: ['Lists'],
    },
  ];
  fake.documents.set('/feeds/news.rss', { contentType: 'application/rss+xml; charset=utf-8', body: rssDocument({ title: 'Example Music News', link: fake.url }, fake.items) });
  fake.documents.set('/feeds/news.atom', { contentType: 'application/atom+xml', body: atomDocument({ title: 'Example Music Blog', link: fake.url, id: `${fake.url}/` }, fake.items) });
  fake.documents.set('/feeds/news.rdf', {
    contentType: 'application/rdf+xml',
    body: `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="${fake.url}/"><title>Old School Zine</title><link>${fake.url}/</link><description>Since 1999</description>
    <items><rdf:Seq><rdf:li rdf:resource="${fake.url}/zine/1" /></rdf:Seq></items></channel>
  <item rdf:about="${fake.url}/zine/1"><title>Copper Moth interview</title><link>${fake.url}/zine/1</link><description>We talk to Copper Moth.</description><dc:date>${new Date(now - 3 * hour).toISOString()}</dc:date><dc:subject>Copper Moth</dc:subject></item>
</rdf:RDF>`,
  });
  fake.documents.set('/feeds/latin1.xml', {
    contentType: 'application/rss+xml',
    body: Buffer.from(rssDocument({ title: 'Revue Musicale', link: fake.url }, [{ title: 'Émilie Café sort un nouvel EP', link: '/articles/emilie-cafe', published: new Date(now - hour), description: 'Où écouter ?' }]).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1'),
  });
  fake.documents.set('/feeds/broken.xml', { contentType: 'application/rss+xml', body: '<?xml version="1.0"?><rss version="2.0"><channel><title>Broken</title><item><title>Unclosed & bad</item></channel>' });
  fake.documents.set('/feeds/entities.xml', {
    contentType: 'application/rss+xml',
    body: '<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><rss version="2.0"><channel><title>&b;</title></channel></rss>',
  });
  const many: FakeNewsItem[] = Array.from({ length: 400 }, (_, i) => ({
    title: i === 0 ? `A very long headline ${'about everything '.repeat(60)}` : `Daily news ${i}`,
    link: `/daily/${i}`,
    published: new Date(now - i * hour),
    description: i === 0 ? `<p>${'Word '.repeat(200_000)}</p>` : `Item ${i}`,
    categories: i === 0 ? Array.from({ length: 50 }, (_, c) => `Tag ${c}`) : ['Daily'],
  }));
  fake.documents.set('/feeds/huge.xml', { contentType: 'application/rss+xml', body: rssDocument({ title: 'Firehose', link: fake.url }, many) });
  fake.documents.set('/index.html', { contentType: 'text/html', body: '<!doctype html><html><head><title>Home</title></head><body><p>Welcome</p></body></html>' });
  return fake;
}
