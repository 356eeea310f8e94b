/**
 * Options parity: the shared client options (client/client-options.ts) mean the same thing and
 * fail the same way on all six client classes. One table of good and bad values is fed to each
 * class's resolver; a good value resolves to the same result everywhere (or, where a class
 * cannot honour the option, to an error saying so), a bad one fails naming the same field.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateAdminOptions } from '../../src/admin/options.js';
import type { ResolvedClientOptions } from '../../src/client/client-options.js';
import { resolveLitePullConsumerOptions } from '../../src/consumer/lite-pull/options.js';
import { resolvePushConsumerOptions } from '../../src/consumer/push/options.js';
import { resolveSimpleConsumerOptions } from '../../src/consumer/simple/options.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import { resolveProducerOptions } from '../../src/producer/options.js';
import { TransactionProducer } from '../../src/producer/transaction-producer.js';

type Resolved = ResolvedClientOptions & {
  enableMsgTrace?: boolean;
  customizedTraceTopic?: string | undefined;
};
type Resolver = (shared: Record<string, unknown>) => Resolved;

/** Each class's resolver, given only the shared options (plus what the class requires). */
const CLASSES: Record<string, Resolver> = {
  Producer: (s) => resolveProducerOptions(s as never),
  TransactionProducer: (s) =>
    new TransactionProducer({ ...s, checkListener: () => 'COMMIT' } as never).options,
  PushConsumer: (s) => resolvePushConsumerOptions({ consumerGroup: 'ParityG', ...s } as never),
  LitePullConsumer: (s) => resolveLitePullConsumerOptions({ consumerGroup: 'ParityG', ...s } as never),
  SimpleConsumer: (s) =>
    resolveSimpleConsumerOptions({
      consumerGroup: 'ParityG',
      subscriptions: { ParityT: '*' },
      ...s,
    } as never),
  Admin: (s) => validateAdminOptions(s as never),
};

/** Shared options each class cannot honour (its error says why). */
const CANNOT_HONOUR: Record<string, readonly string[]> = {
  Producer: [],
  TransactionProducer: [],
  PushConsumer: [],
  LitePullConsumer: ['enableMsgTrace', 'customizedTraceTopic'],
  SimpleConsumer: ['enableMsgTrace', 'customizedTraceTopic'],
  Admin: [
    'namespace',
    'pollNameServerInterval',
    'heartbeatBrokerInterval',
    'enableMsgTrace',
    'customizedTraceTopic',
  ],
};

const NAMESRV = '127.0.0.1:9876';
const logger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

interface Good {
  option: string;
  value: unknown;
  /** What the resolved options show for it. */
  read: (o: Resolved) => unknown;
  expect: unknown;
}

const GOOD: readonly Good[] = [
  {
    option: 'namesrvAddr',
    value: '127.0.0.1:1;127.0.0.2:2',
    read: (o) => o.namesrvAddr,
    expect: ['127.0.0.1:1', '127.0.0.2:2'],
  },
  {
    option: 'namesrvAddr',
    value: ['127.0.0.1:1', ' 127.0.0.1:1 '],
    read: (o) => o.namesrvAddr,
    expect: ['127.0.0.1:1'],
  },
  { option: 'namespace', value: 'ns_1', read: (o) => o.namespace, expect: 'ns_1' },
  { option: 'instanceName', value: 'inst-1', read: (o) => o.instanceName, expect: 'inst-1' },
  { option: 'instanceName', value: '', read: (o) => o.instanceName, expect: 'DEFAULT' },
  { option: 'clientIP', value: '127.1.2.3', read: (o) => o.clientIP, expect: '127.1.2.3' },
  { option: 'unitName', value: 'unit1', read: (o) => o.unitName, expect: 'unit1' },
  { option: 'language', value: 'GO', read: (o) => o.language, expect: 'GO' },
  { option: 'mqClientApiTimeout', value: 1234, read: (o) => o.mqClientApiTimeout, expect: 1234 },
  { option: 'pollNameServerInterval', value: 500, read: (o) => o.pollNameServerInterval, expect: 500 },
  { option: 'heartbeatBrokerInterval', value: 700, read: (o) => o.heartbeatBrokerInterval, expect: 700 },
  { option: 'logger', value: logger, read: (o) => o.logger, expect: logger },
  {
    option: 'credentials',
    value: { accessKey: 'ak123', secretKey: 'sk123' },
    read: (o) => o.connection.credentials?.accessKey,
    expect: 'ak123',
  },
  { option: 'tls', value: true, read: (o) => o.connection.tls?.rejectUnauthorized, expect: true },
  { option: 'enableMsgTrace', value: true, read: (o) => o.enableMsgTrace, expect: true },
  {
    option: 'customizedTraceTopic',
    value: 'MyTrace',
    read: (o) => o.customizedTraceTopic,
    expect: 'MyTrace',
  },
];

interface Bad {
  option: string;
  value: unknown;
  field: string;
  message?: RegExp;
}

const BAD: readonly Bad[] = [
  { option: 'namesrvAddr', value: 'nohost', field: 'namesrvAddr' },
  { option: 'namesrvAddr', value: '127.0.0.1:70000', field: 'namesrvAddr', message: /port out of range/ },
  { option: 'namesrvAddr', value: 42, field: 'namesrvAddr' },
  { option: 'namespace', value: 'bad ns', field: 'namespace' },
  { option: 'instanceName', value: 'a@b', field: 'instanceName', message: /"@"/ },
  { option: 'unitName', value: 'a b', field: 'unitName' },
  { option: 'clientIP', value: 5, field: 'clientIP' },
  { option: 'language', value: 'KLINGON', field: 'language', message: /LanguageCode/ },
  { option: 'language', value: 3, field: 'language' },
  { option: 'mqClientApiTimeout', value: 0, field: 'mqClientApiTimeout' },
  { option: 'mqClientApiTimeout', value: 1.5, field: 'mqClientApiTimeout' },
  { option: 'pollNameServerInterval', value: 5, field: 'pollNameServerInterval' },
  { option: 'heartbeatBrokerInterval', value: 'often', field: 'heartbeatBrokerInterval' },
  { option: 'logger', value: {}, field: 'logger' },
  { option: 'credentials', value: { accessKey: 'ak123' }, field: 'credentials.secretKey' },
  { option: 'tls', value: 'yes', field: 'tls' },
  { option: 'enableMsgTrace', value: 'yes', field: 'enableMsgTrace' },
  { option: 'customizedTraceTopic', value: 'bad topic!', field: 'customizedTraceTopic' },
  // Old names of the request timeout: refused naming Java's.
  { option: 'requestTimeout', value: 1000, field: 'requestTimeout', message: /named mqClientApiTimeout/ },
  { option: 'requestTimeoutMs', value: 1000, field: 'requestTimeoutMs', message: /named mqClientApiTimeout/ },
  {
    option: 'mqClientApiTimeOut',
    value: 1000,
    field: 'mqClientApiTimeOut',
    message: /did you mean mqClientApiTimeout/,
  },
];

function failure(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InvalidArgumentError, String(err));
    return err;
  }
  return assert.fail('expected InvalidArgumentError');
}

describe('shared client options: one meaning on every class', () => {
  for (const [name, resolve] of Object.entries(CLASSES)) {
    it(`${name}: the defaults are Java ClientConfig's`, () => {
      const o = resolve({ namesrvAddr: NAMESRV });
      assert.deepEqual(o.namesrvAddr, [NAMESRV]);
      assert.equal(o.namespace, undefined);
      assert.equal(o.instanceName, 'DEFAULT');
      assert.equal(o.clientIP, undefined);
      assert.equal(o.unitName, undefined);
      assert.equal(o.language, 'JAVA');
      // Admin keeps Java DefaultMQAdminExt's 5 s request timeout; every other client ClientConfig's 3 s.
      assert.equal(o.mqClientApiTimeout, name === 'Admin' ? 5000 : 3000);
      assert.equal(o.pollNameServerInterval, 30_000);
      assert.equal(o.heartbeatBrokerInterval, 30_000);
      assert.equal(o.logger, silentLogger);
      assert.equal(o.connection.credentials, undefined);
      assert.equal(o.connection.tls, undefined);
    });

    it(`${name}: namesrvAddr comes from NAMESRV_ADDR when not given, and is required`, () => {
      const saved = process.env['NAMESRV_ADDR'];
      try {
        process.env['NAMESRV_ADDR'] = '127.0.0.9:9876';
        assert.deepEqual(resolve({}).namesrvAddr, ['127.0.0.9:9876']);
        delete process.env['NAMESRV_ADDR'];
        assert.equal(failure(() => resolve({})).field, 'namesrvAddr');
      } finally {
        if (saved === undefined) delete process.env['NAMESRV_ADDR'];
        else process.env['NAMESRV_ADDR'] = saved;
      }
    });

    for (const g of GOOD) {
      const cannot = CANNOT_HONOUR[name]?.includes(g.option) === true;
      it(`${name}: ${g.option} = ${JSON.stringify(g.value)} ${cannot ? 'is refused, saying why' : 'resolves the same'}`, () => {
        const input = { namesrvAddr: NAMESRV, [g.option]: g.value };
        if (cannot) {
          const e = failure(() => resolve(input));
          assert.equal(e.field, g.option);
          assert.match(e.message, new RegExp(`${name} cannot honour this option: \\S`));
        } else assert.deepEqual(g.read(resolve(input)), g.expect);
      });
    }

    for (const b of BAD) {
      it(`${name}: ${b.option} = ${JSON.stringify(b.value)} fails naming ${b.field}`, () => {
        const e = failure(() => resolve({ namesrvAddr: NAMESRV, [b.option]: b.value }));
        assert.equal(e.field, b.field);
        if (b.message !== undefined && !CANNOT_HONOUR[name]?.includes(b.option))
          assert.match(e.message, b.message);
      });
    }
  }

  it('every class builds the same client id and ClientInstance config from the same shared options', async () => {
    const { clientIdOf, clientInstanceConfig } = await import('../../src/client/client-options.js');
    const shared = {
      namesrvAddr: NAMESRV,
      clientIP: '127.1.2.3',
      instanceName: 'i1',
      unitName: 'u1',
      language: 'GO',
      mqClientApiTimeout: 2000,
    };
    const configs = Object.entries(CLASSES).map(([name, resolve]) => {
      const o = resolve(name === 'Admin' ? shared : { ...shared, namespace: 'ns' });
      const { logger: _l, connection: _c, namespace: _n, ...config } = clientInstanceConfig(o, clientIdOf(o));
      return config;
    });
    for (const c of configs) assert.deepEqual(c, configs[0]);
    assert.equal(configs[0]?.clientId, '127.1.2.3@i1@u1');
    assert.equal(configs[0]?.language, 'GO');
    assert.equal(configs[0]?.createTopicKey, 'TBW102');
    assert.equal(configs[0]?.defaultTopicQueueNums, 4);
  });
});
