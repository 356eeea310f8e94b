/** The hedging and message-trace options of Producer and PushConsumer: defaults and bad input. */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { resolveProducerOptions } from '../../src/producer/options.js';
import { resolvePushConsumerOptions } from '../../src/consumer/push/options.js';
import { traceTopicOf } from '../../src/producer/trace/settings.js';
import { invalidArgument } from '../invalid-argument.js';

const namesrvAddr = '127.0.0.1:9876';

describe('hedging and message-trace options', () => {
  it('defaults: hedging on (10 × p99, 50 ms floor), tracing off as in Java', () => {
    const o = resolveProducerOptions({ namesrvAddr });
    assert.equal(o.hedgeSends, true);
    assert.equal(o.hedgeDelayMultiplier, 10);
    assert.equal(o.hedgeDelayFloorMs, 50);
    assert.equal(o.enableMsgTrace, false);
    assert.equal(o.customizedTraceTopic, undefined);
    assert.equal(traceTopicOf(o), undefined);
    const c = resolvePushConsumerOptions({ namesrvAddr, consumerGroup: 'CG' });
    assert.equal(c.enableMsgTrace, false);
    assert.equal(traceTopicOf(c), undefined);
  });

  it('the trace topic: RMQ_SYS_TRACE_TOPIC unless a custom one is given; a blank one means the default', () => {
    assert.equal(
      traceTopicOf(resolveProducerOptions({ namesrvAddr, enableMsgTrace: true })),
      'RMQ_SYS_TRACE_TOPIC',
    );
    assert.equal(
      traceTopicOf(resolveProducerOptions({ namesrvAddr, enableMsgTrace: true, customizedTraceTopic: '' })),
      'RMQ_SYS_TRACE_TOPIC',
    );
    assert.equal(
      traceTopicOf(
        resolvePushConsumerOptions({
          namesrvAddr,
          consumerGroup: 'CG',
          enableMsgTrace: true,
          customizedTraceTopic: 'MyTrace',
        }),
      ),
      'MyTrace',
    );
  });

  it('bad values throw InvalidArgumentError naming the option', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['hedgeSends', { hedgeSends: 'yes' }],
      ['hedgeDelayMultiplier', { hedgeDelayMultiplier: 0 }],
      ['hedgeDelayMultiplier', { hedgeDelayMultiplier: 2.5 }],
      ['hedgeDelayFloorMs', { hedgeDelayFloorMs: 0 }],
      ['enableMsgTrace', { enableMsgTrace: 1 }],
      ['customizedTraceTopic', { customizedTraceTopic: 'bad topic!' }],
      ['customizedTraceTopic', { customizedTraceTopic: 42 }],
    ];
    for (const [fieldName, bad] of cases) {
      assert.equal(invalidArgument(() => resolveProducerOptions({ namesrvAddr, ...bad })).field, fieldName);
    }
    assert.equal(
      invalidArgument(() =>
        resolvePushConsumerOptions({ namesrvAddr, consumerGroup: 'CG', customizedTraceTopic: 'a/b' }),
      ).field,
      'customizedTraceTopic',
    );
    assert.match(
      invalidArgument(() => resolveProducerOptions({ namesrvAddr, hedgeSend: true } as never)).message,
      /hedgeSends/,
      'a typo names the closest option',
    );
  });
});
