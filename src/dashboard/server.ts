/**
 * The web dashboard: a node:http server rendering HTML over the Admin client (it never speaks
 * the RocketMQ protocol itself), with live regions over Server-Sent Events (live.ts,
 * live-streams.ts), checks on every request (security.ts) and every failure rendered as an
 * inline error in the page (its status from error-status.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Admin } from '../admin/admin.js';
import { NotANameServerError } from '../errors.js';
import { statusOf } from './error-status.js';
import { ClusterCollector } from '../exporter/collector.js';
import { answerScrape } from '../exporter/metrics-server.js';
import { APP_CSS, APP_JS } from './assets.js';
import { errorText, esc, page, type Section } from './html.js';
import { LiveHub } from './live.js';
import { LiveStreams, pollFailureFragments } from './live-streams.js';
import {
  isLoopbackHost,
  validateDashboardOptions,
  type DashboardOptions,
  type ResolvedDashboardOptions,
} from './options.js';
import { ProducerWatch } from './producer-watch.js';
import {
  asset,
  download,
  plain,
  readBody,
  redirect,
  SECURITY_HEADERS,
  MAX_FORM_BYTES,
  type Download,
} from './responses.js';
import { AuthThrottle } from './auth-throttle.js';
import { authorized, crossSiteReason, loopbackHosts, newCsrfToken } from './security.js';
import { clusterPage } from './views/cluster.js';
import { paramsOf, type Params, type ViewContext } from './views/context.js';
import { groupPage, groupsPage, resetOffset } from './views/groups.js';
import { GroupModeCache } from './views/group-mode.js';
import { messagePage, messagesPage, resendMessage, searchForms } from './views/messages.js';
import { browsePage } from './views/browse.js';
import { dlqPage, exportDeadLetters, outcomesTable, resendDeadLetters } from './views/dlq.js';
import { tracePage } from './views/trace.js';
import { Producer } from '../producer/producer.js';
import { metricsPage } from './views/metrics.js';
import { producersPage } from './views/producers.js';
import { createTopic, deleteTopic, topicPage, topicsPage } from './views/topics.js';

interface Rendered {
  title: string;
  body: string;
  live?: string;
}

type GetRoute = (p: Params) => Promise<Rendered>;
type PostRoute = (form: Params) => Promise<(Rendered & { notice: string }) | Download>;

export { statusOf };

export class Dashboard {
  readonly options: ResolvedDashboardOptions;
  /** Producers of this process shown on the producer health page. */
  readonly producers = new ProducerWatch();
  /** @internal */
  readonly hub: LiveHub;
  readonly admin: Admin;
  private readonly ownsAdmin: boolean;
  private readonly csrf = newCsrfToken();
  private readonly ctx: ViewContext;
  private readonly live: LiveStreams;
  /** @internal */
  readonly throttle: AuthThrottle;
  private server: Server | undefined;
  /** The producer this dashboard started for resends (options.producer is the caller's). */
  private ownProducer: Promise<Producer> | undefined;
  /** `/metrics` (docs/observability.md §3): the same auth and Host checks as the pages. */
  readonly collector: ClusterCollector;
  private hosts: Set<string> | undefined;

  constructor(options?: DashboardOptions) {
    this.options = validateDashboardOptions(options);
    const o = this.options;
    this.ownsAdmin = o.admin === undefined;
    this.admin =
      o.admin ??
      new Admin({
        namesrvAddr: o.namesrvAddr,
        mqClientApiTimeout: o.requestTimeout,
        logger: o.logger,
        ...o.connection,
      });
    this.hub = new LiveHub(o.refreshMs, pollFailureFragments, o.maxLiveViews);
    this.collector = new ClusterCollector({ admin: this.admin });
    this.throttle = new AuthThrottle(o.authMaxFailures, o.authLockoutMs);
    this.ctx = {
      admin: this.admin,
      hub: this.hub,
      csrf: this.csrf,
      historyPoints: o.historyPoints,
      producers: this.producers,
      groupModes: new GroupModeCache(this.admin),
      resendProducer: () => this.resendProducer(),
    };
    this.live = new LiveStreams(this.hub, this.ctx, this.collector, o.maxLiveStreams, o.maxLiveViews);
  }

  /** Listens; resolves to the dashboard's URL. */
  async start(): Promise<string> {
    if (this.server) return this.url;
    await this.refuseWrongEndpoint();
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    if (isLoopbackHost(this.options.host)) this.hosts = loopbackHosts(this.port);
    return this.url;
  }

  /**
   * Refuses to start at an address that can never work (a 5.x Proxy or a broker given as the
   * NameServer: ProxyEndpointError, NotANameServerError), where every page would show the same
   * error. A NameServer that is down is not refused: the pages show it, and recover with it.
   */
  private async refuseWrongEndpoint(): Promise<void> {
    if (!this.ownsAdmin) return;
    try {
      await this.admin.clusterInfo();
    } catch (err) {
      if (err instanceof NotANameServerError) throw err;
    }
  }

  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  get url(): string {
    const h = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `http://${h}:${this.port}/`;
  }

  /** Stops polling, ends every live stream, closes the server (and the Admin client it made). */
  async close(): Promise<void> {
    this.hub.close();
    this.producers.unwatchAll();
    this.live.endAll();
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const own = this.ownProducer;
    this.ownProducer = undefined;
    if (own) await own.then((p) => p.shutdown()).catch(() => undefined);
    if (this.ownsAdmin) await this.admin.close();
  }

  /** options.producer, else one of this dashboard's own, started on first use. */
  private resendProducer(): Promise<Producer> {
    if (this.options.producer) return Promise.resolve(this.options.producer);
    if (!this.ownProducer) {
      const producer = new Producer({
        namesrvAddr: this.admin.options.namesrvAddr,
        producerGroup: 'DASHBOARD_RESEND_PRODUCER',
        logger: this.options.logger,
        ...this.options.connection,
      });
      const started = producer.start().then(() => producer);
      this.ownProducer = started;
      // a failed start is not kept: the next resend tries again
      started.catch(() => {
        if (this.ownProducer === started) this.ownProducer = undefined;
      });
    }
    return this.ownProducer;
  }

  private readonly gets: Readonly<Record<string, [Section, GetRoute]>> = {
    '/cluster': [
      'cluster',
      async () => ({ title: 'Cluster', body: await clusterPage(this.ctx), live: '/events?view=cluster' }),
    ],
    '/topics': ['topics', async (p) => ({ title: 'Topics', body: await topicsPage(this.ctx, p) })],
    '/topic': [
      'topics',
      async (p) => ({ ...(await topicPage(this.ctx, p)), live: liveUrl('topic', p.get('name')) }),
    ],
    '/groups': ['groups', async (p) => ({ title: 'Consumer groups', body: await groupsPage(this.ctx, p) })],
    '/group': [
      'groups',
      async (p) => ({ ...(await groupPage(this.ctx, p)), live: liveUrl('group', p.get('name')) }),
    ],
    '/messages': ['messages', async (p) => ({ title: 'Messages', body: await messagesPage(this.ctx, p) })],
    '/message': ['messages', (p) => messagePage(this.ctx, p)],
    '/messages/time': [
      'messages',
      async (p) => ({ title: 'Browse by time', body: await browsePage(this.ctx, p) }),
    ],
    '/message/trace': ['messages', (p) => tracePage(this.ctx, p)],
    '/group/dlq': ['groups', (p) => dlqPage(this.ctx, p)],
    '/producers': [
      'producers',
      () =>
        Promise.resolve({
          title: 'Producer health',
          body: producersPage(this.ctx),
          live: '/events?view=producers',
        }),
    ],
    '/metrics-page': [
      'metrics',
      async () => ({
        title: 'Metrics',
        body: await metricsPage(this.ctx, this.collector),
        live: '/events?view=metrics',
      }),
    ],
  };

  private readonly posts: Readonly<Record<string, [Section, PostRoute, (form: Params) => GetRoute]>> = {
    '/topics/create': [
      'topics',
      async (f) => {
        const notice = await createTopic(this.ctx, f);
        return { notice, title: 'Topics', body: await topicsPage(this.ctx, new Map()) };
      },
      () => this.gets['/topics']![1],
    ],
    '/topics/delete': [
      'topics',
      async (f) => {
        const notice = await deleteTopic(this.ctx, f);
        return { notice, title: 'Topics', body: await topicsPage(this.ctx, new Map()) };
      },
      (f) => (p) => this.gets['/topic']![1](new Map([...p, ['name', f.get('topic') ?? '']])),
    ],
    '/group/reset': [
      'groups',
      async (f) => {
        const { notice, result } = await resetOffset(this.ctx, f);
        const p = new Map([['name', f.get('group') ?? '']]);
        return { notice, ...(await groupPage(this.ctx, p, result)), live: liveUrl('group', f.get('group')) };
      },
      (f) => (p) => this.gets['/group']![1](new Map([...p, ['name', f.get('group') ?? '']])),
    ],
    '/group/dlq/resend': [
      'groups',
      async (f) => {
        const { notice, outcomes } = await resendDeadLetters(this.ctx, f);
        const p = new Map([['name', f.get('group') ?? '']]);
        const page = await dlqPage(this.ctx, p);
        return { notice, title: page.title, body: `${outcomesTable(outcomes)}${page.body}` };
      },
      (f) => (p) => dlqPage(this.ctx, new Map([...p, ['name', f.get('group') ?? '']])),
    ],
    '/group/dlq/export': [
      'groups',
      async (f) => {
        const file = await exportDeadLetters(this.ctx, f);
        return { download: { ...file, type: 'application/json; charset=utf-8' } };
      },
      (f) => (p) => dlqPage(this.ctx, new Map([...p, ['name', f.get('group') ?? '']])),
    ],
    '/message/resend': [
      'messages',
      async (f) => {
        const notice = await resendMessage(this.ctx, f);
        return { notice, ...(await messagePage(this.ctx, f)) };
      },
      () => (p) => messagePage(this.ctx, p),
    ],
  };

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (this.hosts && !this.hosts.has(req.headers.host ?? '')) {
        return plain(res, 403, `unknown Host header ${req.headers.host ?? '(none)'}: use ${this.url}`);
      }
      if (this.options.auth && !this.authenticate(req, res)) return;
      const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
      const path = url.pathname;
      if (req.method === 'GET' || req.method === 'HEAD') {
        if (path === '/') return redirect(res, '/cluster');
        if (path === '/assets/app.js') return asset(res, 'text/javascript; charset=utf-8', APP_JS);
        if (path === '/assets/app.css') return asset(res, 'text/css; charset=utf-8', APP_CSS);
        if (path === '/events') return this.live.open(req, res, url.searchParams);
        if (path === '/metrics') return await answerScrape(this.collector, res, this.options.logger);
        const route = Object.hasOwn(this.gets, path) ? this.gets[path] : undefined;
        if (!route)
          return this.send(res, 404, { title: 'Not found', body: '' }, 'cluster', `no page at ${path}`);
        return await this.get(res, route, paramsOf(url.searchParams));
      }
      if (req.method === 'POST') {
        const route = Object.hasOwn(this.posts, path) ? this.posts[path] : undefined;
        if (!route) return plain(res, 404, `no action at ${path}`);
        return await this.post(req, res, route);
      }
      res.setHeader('Allow', 'GET, HEAD, POST');
      return plain(res, 405, `method ${req.method ?? ''} not allowed`);
    } catch (err) {
      // a failure outside the page handlers (never a stack trace on the wire)
      this.options.logger.error('dashboard request failed', { err });
      if (!res.headersSent) plain(res, 500, errorText(err));
      else res.end();
    }
  }

  /**
   * Basic auth with throttling per client address (auth-throttle.ts): false when the request was
   * answered (401, or 429 while the address is locked out).
   */
  private authenticate(req: IncomingMessage, res: ServerResponse): boolean {
    const address = req.socket.remoteAddress ?? '';
    const wait = this.throttle.retryAfter(address);
    if (wait > 0) {
      res.setHeader('Retry-After', String(wait));
      plain(res, 429, `too many failed logins from ${address}: try again in ${wait} s`);
      return false;
    }
    if (authorized(req, this.options.auth)) {
      this.throttle.succeeded(address);
      return true;
    }
    if (req.headers.authorization !== undefined) {
      this.throttle.failed(address);
      this.options.logger.warn('dashboard login failed', { address });
    }
    res.setHeader('WWW-Authenticate', 'Basic realm="rocketmq-ts dashboard", charset="UTF-8"');
    plain(res, 401, 'authentication required');
    return false;
  }

  private async get(res: ServerResponse, [section, route]: [Section, GetRoute], p: Params): Promise<void> {
    try {
      this.send(res, 200, await route(p), section);
    } catch (err) {
      this.failed(res, section, err, fallbackBody(section, p));
    }
  }

  private async post(
    req: IncomingMessage,
    res: ServerResponse,
    [section, action, onError]: [Section, PostRoute, (form: Params) => GetRoute],
  ): Promise<void> {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('application/x-www-form-urlencoded'))
      return plain(res, 415, 'expected a form (application/x-www-form-urlencoded)');
    const raw = await readBody(req);
    if (raw === undefined) return plain(res, 413, `form larger than ${MAX_FORM_BYTES} bytes`);
    const form = paramsOf(new URLSearchParams(raw));
    const refused = crossSiteReason(req, form.get('csrf'), this.csrf);
    if (refused) {
      this.options.logger.warn('dashboard refused a cross-site request', { reason: refused });
      return plain(res, 403, refused);
    }
    try {
      const r = await action(form);
      if ('download' in r) return download(res, r.download);
      this.send(res, 200, r, section, undefined, r.notice);
    } catch (err) {
      // the form's page again, with the error above it and the values kept where possible
      let page: Rendered;
      try {
        page = await onError(form)(form);
      } catch {
        page = { title: 'Error', body: fallbackBody(section, form) };
      }
      this.send(res, statusOf(err), page, section, errorText(err));
    }
  }

  private failed(res: ServerResponse, section: Section, err: unknown, body: string): void {
    const status = statusOf(err);
    if (status === 500) this.options.logger.error('dashboard page failed', { err });
    this.send(res, status, { title: 'Error', body }, section, errorText(err));
  }

  private send(
    res: ServerResponse,
    status: number,
    r: Rendered,
    section: Section,
    error?: string,
    notice?: string,
  ): void {
    const html = page({ title: r.title, section, body: r.body, live: r.live, error, notice });
    res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  }
}

function liveUrl(view: string, name: string | undefined): string {
  return `/events?${new URLSearchParams({ view, name: name ?? '' })}`;
}

/** What a page shows under its error when its data could not be read. */
function fallbackBody(section: Section, p: Params): string {
  if (section === 'messages') return searchForms(p);
  const [href, text] =
    section === 'topics'
      ? ['/topics', 'All topics']
      : section === 'groups'
        ? ['/groups', 'All consumer groups']
        : ['/cluster', 'Cluster'];
  return `<p><a href="${href}">${esc(text)}</a></p>`;
}
