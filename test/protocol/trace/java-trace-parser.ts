/**
 * An independent reader of Java trace bodies, written from `TraceDataEncoder.decoderFromTraceDataString`
 * (records split on U+0002, fields on U+0001, fields by position per type) — not from our encoder.
 */
export interface ParsedRecord {
  type: string;
  fields: string[];
  /** Named fields as Java's decoder assigns them. */
  named: Record<string, string>;
}

const LAYOUT: Record<string, string[]> = {
  Pub: [
    'timeStamp',
    'regionId',
    'groupName',
    'topic',
    'msgId',
    'tags',
    'keys',
    'storeHost',
    'bodyLength',
    'costTime',
    'msgType',
    'offsetMsgId',
    'success',
    'clientHost',
  ],
  SubBefore: ['timeStamp', 'regionId', 'groupName', 'requestId', 'msgId', 'retryTimes', 'keys'],
  SubAfter: ['requestId', 'msgId', 'costTime', 'success', 'keys', 'contextCode', 'timeStamp', 'groupName'],
};

export function parseJavaTrace(body: string): ParsedRecord[] {
  const out: ParsedRecord[] = [];
  for (const record of body.split('\u0002')) {
    if (record.length === 0) continue;
    const [type = '', ...fields] = record.split('\u0001');
    const names = LAYOUT[type] ?? [];
    const named: Record<string, string> = {};
    fields.forEach((f, i) => {
      const n = names[i];
      if (n !== undefined) named[n] = f;
    });
    out.push({ type, fields, named });
  }
  return out;
}
