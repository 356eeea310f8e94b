/**
 * The OpenTelemetry Java agent on the interop driver's JVMs: where the jar is
 * (interop/target/otel, copied by interop/pom.xml at `npm run interop:prepare`), the flags that
 * keep it off the network, and the spans it printed.
 *
 * Spans leave the JVM as OTLP JSON lines on stderr (`otel.traces.exporter=logging-otlp`, one
 * `ExportTraceServiceRequest`-shaped object per line, logged through java.util.logging), so no
 * exporter endpoint is ever used: metrics and logs exporters are `none`. Only the RocketMQ
 * client instrumentation is switched on: the others add nothing here and cost seconds of start-up
 * on a busy machine.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, parseDriverResult, runJava, type JavaRunOptions } from './java.js';

/** The agent version interop/pom.xml copies (`otel.javaagent.version`); for test names and docs. */
export const OTEL_AGENT_VERSION = '2.33.1';

export function otelAgentJar(): string {
  return join(REPO_ROOT, 'interop', 'target', 'otel', 'opentelemetry-javaagent.jar');
}

/**
 * Which messaging conventions the agent follows: its default (the older ones: `<topic> publish`,
 * `<topic> process`, `messaging.operation`) or the current ones ours follow
 * (`otel.semconv-stability.opt-in=messaging`: `send <topic>`, `process <topic>`,
 * `messaging.operation.name/type`, `messaging.consumer.group.name`).
 */
export type AgentConventions = 'default' | 'current';

/** JVM flags that attach the agent with its spans on stderr and nothing exported elsewhere. */
export function otelAgentJvmArgs(serviceName: string, conventions: AgentConventions = 'default'): string[] {
  const jar = otelAgentJar();
  if (!existsSync(jar)) {
    throw new Error(`interop: ${jar} is missing (npm run interop:prepare copies it from Maven Central)`);
  }
  return [
    `-javaagent:${jar}`,
    `-Dotel.service.name=${serviceName}`,
    '-Dotel.traces.exporter=logging-otlp',
    '-Dotel.metrics.exporter=none',
    '-Dotel.logs.exporter=none',
    '-Dotel.propagators=tracecontext',
    '-Dotel.traces.sampler=parentbased_always_on',
    '-Dotel.instrumentation.common.default-enabled=false',
    '-Dotel.instrumentation.rocketmq-client.enabled=true',
    ...(conventions === 'current' ? ['-Dotel.semconv-stability.opt-in=messaging'] : []),
  ];
}

/** The agent's span lines: `... OtlpJsonLoggingSpanExporter - {json}`. */
const SPAN_LINE = /OtlpJsonLoggingSpanExporter - \{/;

export type AttributeValue = string | number | boolean | AttributeValue[];

/** One span the agent exported, flattened out of the OTLP JSON. */
export interface AgentSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: 'INTERNAL' | 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER' | 'UNSPECIFIED';
  /** The instrumentation scope, e.g. `io.opentelemetry.rocketmq-client-4.8`. */
  readonly scope: string;
  readonly serviceName: string | undefined;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly links: readonly { traceId: string; spanId: string }[];
}

const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpResourceSpans {
  resource?: { attributes?: OtlpAttribute[] };
  scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
}

function attributeValue(v: OtlpValue): AttributeValue {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return (v.arrayValue?.values ?? []).map(attributeValue);
}

function attributeMap(list: readonly OtlpAttribute[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const a of list ?? []) out[a.key] = attributeValue(a.value);
  return out;
}

/** Every span in the agent's stderr lines (lines that are no span line are skipped). */
export function parseAgentSpans(lines: readonly string[]): AgentSpan[] {
  const spans: AgentSpan[] = [];
  for (const line of lines) {
    const at = line.search(SPAN_LINE);
    if (at < 0) continue;
    const json = line.slice(line.indexOf('{', at));
    const resourceSpans = JSON.parse(json) as OtlpResourceSpans;
    const resource = attributeMap(resourceSpans.resource?.attributes);
    const serviceName = resource['service.name'];
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const s of scopeSpans.spans ?? []) {
        spans.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: KINDS[s.kind ?? 0] ?? 'UNSPECIFIED',
          scope: scopeSpans.scope?.name ?? '',
          serviceName: typeof serviceName === 'string' ? serviceName : undefined,
          attributes: attributeMap(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        });
      }
    }
  }
  return spans;
}

export interface AgentRun<T> {
  /** The driver's JSON result. */
  readonly result: T;
  /** Every span the agent exported before the JVM exited (its shutdown flushes them). */
  readonly spans: AgentSpan[];
}

export interface AgentRunOptions extends JavaRunOptions {
  /** @default 'default' */
  conventions?: AgentConventions;
}

/** Runs one interop driver command under the agent as service `serviceName`. */
export async function runDriverWithAgent<T = Record<string, unknown>>(
  version: string,
  serviceName: string,
  args: readonly string[],
  options: AgentRunOptions = {},
): Promise<AgentRun<T>> {
  const r = await runJava(version, 'org.rocketmqts.interop.Driver', args, {
    ...options,
    jvmArgs: [...otelAgentJvmArgs(serviceName, options.conventions), ...(options.jvmArgs ?? [])],
    keepStderrLines: SPAN_LINE,
  });
  return { result: parseDriverResult<T>(version, args, r), spans: parseAgentSpans(r.keptLines) };
}

/** `traceparent` = version-traceId-spanId-flags; undefined when the value is not one. */
export function parseTraceparent(
  value: string | undefined,
): { traceId: string; spanId: string; flags: string } | undefined {
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value ?? '');
  if (!m || m[2] === undefined || m[3] === undefined || m[4] === undefined) return undefined;
  return { traceId: m[2], spanId: m[3], flags: m[4] };
}
