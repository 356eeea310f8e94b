import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { InvalidArgumentError } from '../../src/errors.js';
import { escapeLabelValue, writeExposition, type MetricFamily } from '../../src/exporter/exposition.js';

const FIXTURE = new URL('../../../test/fixtures/exporter/exposition.txt', import.meta.url);

const families: MetricFamily[] = [
  {
    name: 'rocketmq_group_diff',
    help: 'Messages not consumed',
    type: 'gauge',
    labelNames: ['group', 'topic'],
    samples: [
      { labels: { group: 'g"quoted"', topic: 'T\\back' }, value: 7 },
      { labels: { group: 'a-group', topic: 'line\nbreak' }, value: 0 },
    ],
  },
  {
    name: 'rocketmq_broker_tps',
    help: 'Put TPS\nper broker \\ minute',
    type: 'gauge',
    labelNames: ['cluster', 'brokerIP', 'broker'],
    samples: [{ labels: { cluster: 'C', brokerIP: '127.0.0.1:10911', broker: 'broker-a' }, value: 12.5 }],
  },
  {
    name: 'rocketmq_exporter_scrape_errors_total',
    help: 'Failed fetches',
    type: 'counter',
    labelNames: ['broker', 'stage'],
    samples: [{ labels: { broker: 'broker-b', stage: 'runtime_stats' }, value: 2 }],
  },
  // the same family again: merged under one HELP/TYPE
  {
    name: 'rocketmq_group_diff',
    help: 'Messages not consumed',
    type: 'gauge',
    labelNames: ['group', 'topic'],
    samples: [{ labels: { group: 'b-group', topic: 'T' }, value: Number.NaN }],
  },
];

test('label values escape backslash, double quote and newline', () => {
  assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
});

test('the exposition matches the fixture byte for byte: sorted, HELP/TYPE once per family', () => {
  const text = writeExposition(families);
  assert.equal(text, readFileSync(FIXTURE, 'utf8'));
  assert.equal(text.match(/^# TYPE rocketmq_group_diff /gm)?.length, 1);
  assert.equal(text.match(/^# HELP rocketmq_group_diff /gm)?.length, 1);
});

test('the same figures in another order give the same text', () => {
  const reversed = [...families].reverse().map((f) => ({ ...f, samples: [...f.samples].reverse() }));
  assert.equal(writeExposition(reversed), writeExposition(families));
});

test('a bad metric or label name is an InvalidArgumentError', () => {
  assert.throws(
    () => writeExposition([{ name: 'bad-name', help: '', type: 'gauge', labelNames: [], samples: [] }]),
    InvalidArgumentError,
  );
  assert.throws(
    () => writeExposition([{ name: 'ok', help: '', type: 'gauge', labelNames: ['__reserved'], samples: [] }]),
    InvalidArgumentError,
  );
});

test('no families is an empty text', () => {
  assert.equal(writeExposition([]), '');
});
