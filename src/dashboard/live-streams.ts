/**
 * The dashboard's live regions over Server-Sent Events: `GET /events?view=…` subscribes the
 * response to one view of the LiveHub (one poller per distinct view, whatever the number of tabs
 * showing it), bounded in open streams and in views polled at once (docs/admin-cli.md §4).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClusterCollector } from '../exporter/collector.js';
import { errorBox, errorText } from './html.js';
import type { Fragments, LiveHub, LiveView } from './live.js';
import { plain, SECURITY_HEADERS } from './responses.js';
import { ClusterView } from './views/cluster.js';
import type { ViewContext } from './views/context.js';
import { GroupView } from './views/groups.js';
import { MetricsView } from './views/metrics.js';
import { ProducersView } from './views/producers.js';
import { TopicView } from './views/topics.js';

export class LiveStreams {
  private readonly streams = new Set<ServerResponse>();

  constructor(
    private readonly hub: LiveHub,
    private readonly ctx: ViewContext,
    private readonly collector: ClusterCollector,
    private readonly maxLiveStreams: number,
    private readonly maxLiveViews: number,
  ) {}

  /** GET /events?view=…[&name=…]: answers 400, 429 or 503, or keeps the response as a stream. */
  open(req: IncomingMessage, res: ServerResponse, q: URLSearchParams): void {
    const view = q.get('view') ?? '';
    const name = q.get('name') ?? '';
    let key: string;
    let create: () => LiveView;
    if (view === 'cluster') [key, create] = ['cluster', () => new ClusterView(this.ctx)];
    else if (view === 'producers') [key, create] = ['producers', () => new ProducersView(this.ctx)];
    else if (view === 'metrics') [key, create] = ['metrics', () => new MetricsView(this.ctx, this.collector)];
    else if (view === 'topic' && name) [key, create] = [`topic:${name}`, () => new TopicView(this.ctx, name)];
    else if (view === 'group' && name) [key, create] = [`group:${name}`, () => new GroupView(this.ctx, name)];
    else
      return plain(
        res,
        400,
        'view must be cluster, producers, metrics, topic (with name) or group (with name)',
      );
    // Bounded: each stream holds a socket, each distinct view a poller (docs/admin-cli.md §4).
    if (this.streams.size >= this.maxLiveStreams) {
      res.setHeader('Retry-After', '10');
      return plain(
        res,
        429,
        `too many live streams open (${this.maxLiveStreams}): close other dashboard tabs`,
      );
    }
    if (!this.hub.canSubscribe(key)) {
      res.setHeader('Retry-After', '10');
      return plain(
        res,
        503,
        `too many live views polled at once (${this.maxLiveViews}): close other dashboard tabs`,
      );
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
    });
    res.write('retry: 3000\n\n');
    this.streams.add(res);
    const unsubscribe = this.hub.subscribe(key, create, (f) => {
      res.write(`event: update\ndata: ${JSON.stringify(f)}\n\n`);
    });
    const done = (): void => {
      unsubscribe();
      this.streams.delete(res);
    };
    req.on('close', done);
    res.on('close', done);
  }

  /** At close: every open stream ends. */
  endAll(): void {
    for (const res of this.streams) res.end();
    this.streams.clear();
  }
}

/** What a live region shows when its view's poll failed: the error, in the region it fills. */
export function pollFailureFragments(key: string, err: unknown): Fragments {
  const region =
    key === 'cluster'
      ? 'brokers'
      : key === 'producers'
        ? 'health'
        : key === 'metrics'
          ? 'metrics-brokers'
          : key.startsWith('topic:')
            ? 'queues'
            : 'progress';
  return { [region]: errorBox(errorText(err)) };
}
