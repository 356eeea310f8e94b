import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { Deadline } from '../../src/client/deadline.js';
import { NotANameServerError } from '../../src/errors.js';
import { NamesrvClient, NAMESRV_BACKOFF_MIN_MS } from '../../src/client/namesrv-client.js';
import { ConnectError } from '../../src/errors.js';
import { silentLogger } from '../../src/observability/logger.js';
import { ResponseCode } from '../../src/protocol/codes.js';
import { createRequest, DEFAULT_COMMAND_DEFAULTS, type RemotingCommand } from '../../src/protocol/command.js';
import type { ConnectionPool } from '../../src/remoting/pool.js';

/** A pool whose NameServers are up or down as the test says; logs every address asked. */
function fakePool(down: Set<string>) {
  const asked: string[] = [];
  const pool = {
    request(address: string, cmd: RemotingCommand): Promise<RemotingCommand> {
      asked.push(address);
      if (down.has(address)) return Promise.reject(new ConnectError(address, 'refused'));
      return Promise.resolve({ ...cmd, code: ResponseCode.SUCCESS, flag: 1 });
    },
  } as unknown as ConnectionPool;
  return { pool, asked };
}

const build = (): RemotingCommand => createRequest(105, undefined, undefined, DEFAULT_COMMAND_DEFAULTS);

describe('NamesrvClient failover', () => {
  it('a dead NameServer is skipped for its backoff, not tried on every call, and tried again after it', async () => {
    let now = 1_000_000;
    const clock = (): number => now;
    const down = new Set(['127.0.0.1:1']);
    const { pool, asked } = fakePool(down);
    const ns = new NamesrvClient(
      ['127.0.0.1:1', '127.0.0.1:2'],
      pool,
      DEFAULT_COMMAND_DEFAULTS,
      silentLogger,
      0,
      clock,
    );
    await ns.request(build, Deadline.after(1000, clock));
    assert.deepEqual(asked, ['127.0.0.1:1', '127.0.0.1:2'], 'failed over in order');
    assert.equal(ns.isBackingOff('127.0.0.1:1'), true);
    for (let i = 0; i < 5; i++) await ns.request(build, Deadline.after(1000, clock));
    assert.deepEqual(asked.slice(2), Array(5).fill('127.0.0.1:2'), 'the dead one is not asked again');
    // The live one dies too: the one backing off is still the last resort within the same budget.
    down.add('127.0.0.1:2');
    down.delete('127.0.0.1:1');
    asked.length = 0;
    await ns.request(build, Deadline.after(1000, clock));
    assert.deepEqual(asked, ['127.0.0.1:2', '127.0.0.1:1']);
    assert.equal(ns.currentAddress, '127.0.0.1:1');
    assert.equal(ns.isBackingOff('127.0.0.1:1'), false, 'an answer ends the backoff');
    // 127.0.0.1:2 backs off 1 s, then 2 s after a second failure.
    assert.equal(ns.isBackingOff('127.0.0.1:2'), true);
    now += NAMESRV_BACKOFF_MIN_MS;
    assert.equal(ns.isBackingOff('127.0.0.1:2'), false);
    down.add('127.0.0.1:1');
    asked.length = 0;
    await assert.rejects(ns.request(build, Deadline.after(1000, clock)), ConnectError);
    assert.deepEqual(asked, ['127.0.0.1:1', '127.0.0.1:2'], 'the budget covers every NameServer');
    now += NAMESRV_BACKOFF_MIN_MS;
    assert.equal(ns.isBackingOff('127.0.0.1:2'), true, 'the second failure doubled the backoff');
    now += NAMESRV_BACKOFF_MIN_MS;
    assert.equal(ns.isBackingOff('127.0.0.1:2'), false);
  });
});

describe('NamesrvClient against an address that is not a NameServer', () => {
  /** A pool whose one peer answers every request REQUEST_CODE_NOT_SUPPORTED, as a broker does to 105. */
  const brokerPool = {
    request: (_address: string, cmd: RemotingCommand): Promise<RemotingCommand> =>
      Promise.resolve({ ...cmd, code: ResponseCode.REQUEST_CODE_NOT_SUPPORTED, flag: 1 }),
  } as unknown as ConnectionPool;
  const ns = new NamesrvClient(['127.0.0.1:10911'], brokerPool, DEFAULT_COMMAND_DEFAULTS, silentLogger, 0);

  it('a route or cluster-info request answered REQUEST_CODE_NOT_SUPPORTED is NotANameServerError naming the address', async () => {
    for (const call of [
      () => ns.getRouteInfo('T', Deadline.after(1000)),
      () => ns.getClusterInfo(Deadline.after(1000)),
    ])
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof NotANameServerError);
        assert.equal(err.address, '127.0.0.1:10911');
        assert.match(err.message, /^127\.0\.0\.1:10911 looks like a broker, not a NameServer/);
        return true;
      });
  });

  it('a request only some NameServer versions support keeps its response for the caller to judge', async () => {
    const r = await ns.request(
      () => createRequest(999, undefined, undefined, DEFAULT_COMMAND_DEFAULTS),
      Deadline.after(1000),
    );
    assert.equal(r.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
  });
});
