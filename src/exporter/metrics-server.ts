/**
 * The headless exporter (`rocketmq-ts exporter`): a node:http server answering `GET /metrics`
 * with one scrape of a ClusterCollector, and a one-line index page at `/`. Bound to loopback by
 * default, where the Host header must name this server (as the dashboard, security.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Admin } from '../admin/admin.js';
import type { ClientConnectionOptions } from '../client/connection-options.js';
import { CLIENT_CONNECTION_OPTION_KEYS } from '../client/connection-options.js';
import { InvalidArgumentError } from '../errors.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { checkInt, checkLogger, checkString, keyList, withDefaults } from '../options.js';
import { ClusterCollector } from './collector.js';
import { EXPOSITION_CONTENT_TYPE } from './exposition.js';
import { DEFAULT_CLUSTER_COLLECTOR_OPTIONS } from './options.js';

export interface MetricsServerOptions extends ClientConnectionOptions {
  /** NameServer addresses, `"a:9876;b:9876"`. @default process.env.NAMESRV_ADDR */
  namesrvAddr?: string | readonly string[] | undefined;
  /** TCP port; 0 picks a free one. @default 5557 (rocketmq-exporter's) */
  port?: number | undefined;
  /** Address to listen on. @default '127.0.0.1' */
  host?: string | undefined;
  /** Longest wait for one broker's answer, ms (the Admin's `mqClientApiTimeout`). @default 3000 */
  brokerTimeoutMs?: number | undefined;
  /** See ClusterCollectorOptions. @default 8000 */
  scrapeTimeoutMs?: number | undefined;
  /** @default silentLogger */
  logger?: Logger | undefined;
}

const KNOWN = keyList<MetricsServerOptions>({
  namesrvAddr: true,
  port: true,
  host: true,
  brokerTimeoutMs: true,
  scrapeTimeoutMs: true,
  logger: true,
  ...CLIENT_CONNECTION_OPTION_KEYS,
});

const DEFAULTS = Object.freeze({ port: 5557, host: '127.0.0.1', logger: silentLogger });

/** The answer to a scrape: 200 with the text, or 500 naming what failed (never a stack trace). */
export async function answerScrape(
  collector: ClusterCollector,
  res: ServerResponse,
  logger: Logger,
): Promise<void> {
  let text: string;
  try {
    text = await collector.scrape();
  } catch (err) {
    logger.error('metrics scrape failed', { err });
    res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`scrape failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return;
  }
  res.writeHead(200, {
    'Content-Type': EXPOSITION_CONTENT_TYPE,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}

export class MetricsServer {
  readonly admin: Admin;
  readonly collector: ClusterCollector;
  private readonly host: string;
  private readonly port0: number;
  private readonly logger: Logger;
  private server: Server | undefined;

  constructor(options?: MetricsServerOptions) {
    const o = withDefaults<MetricsServerOptions>(DEFAULTS, options ?? {}, KNOWN);
    const namesrvAddr = o.namesrvAddr ?? process.env['NAMESRV_ADDR'];
    if (namesrvAddr === undefined)
      throw new InvalidArgumentError('namesrvAddr', 'is required (or set NAMESRV_ADDR)');
    this.host = checkString('host', o.host);
    this.port0 = checkInt('port', o.port, 0, 65535);
    this.logger = checkLogger('logger', o.logger);
    this.admin = new Admin({
      namesrvAddr,
      logger: this.logger,
      mqClientApiTimeout: checkInt('brokerTimeoutMs', o.brokerTimeoutMs ?? 3000, 1, 600_000),
      credentials: o.credentials,
      tls: o.tls,
    });
    this.collector = new ClusterCollector({
      admin: this.admin,
      scrapeTimeoutMs: o.scrapeTimeoutMs ?? DEFAULT_CLUSTER_COLLECTOR_OPTIONS.scrapeTimeoutMs,
    });
  }

  /** Listens; resolves to the server's base URL. */
  async start(): Promise<string> {
    if (this.server) return this.url;
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port0, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return this.url;
  }

  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  get url(): string {
    const h = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${h}:${this.port}/`;
  }

  /** Closes the server and its Admin client. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await this.admin.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const loopback = this.host === 'localhost' || this.host === '::1' || /^127\./.test(this.host);
    const hosts = [`127.0.0.1:${this.port}`, `localhost:${this.port}`, `[::1]:${this.port}`];
    if (loopback && !hosts.includes(req.headers.host ?? '')) return text(res, 403, 'unknown Host header');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return text(res, 405, `method ${req.method ?? ''} not allowed`);
    }
    const path = new URL(req.url ?? '/', 'http://exporter.invalid').pathname;
    if (path === '/metrics') return answerScrape(this.collector, res, this.logger);
    if (path === '/') return text(res, 200, 'rocketmq-ts exporter: metrics at /metrics');
    return text(res, 404, `nothing at ${path}: metrics at /metrics`);
  }
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(`${body}\n`);
}
