/**
 * The send processor's batch answer: the comma-joined offsetMsgIds, written digit pairs at a
 * time from the first id, equal joining `encodeOffsetMsgId` of every record's offset.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeOffsetMsgId } from '../../../../src/protocol/message/message-id.js';
import { joinOffsetMsgIds } from '../../../../src/server/broker/processors/send.js';

function expected(address: string, port: number, first: number, starts: Int32Array, count: number): string {
  return Array.from({ length: count }, (_, i) => encodeOffsetMsgId(address, port, first + starts[i]!)).join(
    ',',
  );
}

test('batch msgIds equal each record id joined, across a 4 GiB boundary and for IPv6 store hosts', () => {
  const starts = Int32Array.from([0, 180, 361, 70_000, 1_000_000, 0x7fff_fff0]);
  for (const [address, port] of [
    ['127.0.0.1', 10911],
    ['::1', 10911],
  ] as const) {
    for (const first of [0, 4096, 0xffff_ff00, 2 ** 32, 2 ** 40 - 200, 2 ** 52 + 7, 0xabcd_ef01_2345]) {
      for (const count of [1, 2, starts.length]) {
        const firstId = encodeOffsetMsgId(address, port, first);
        assert.equal(
          joinOffsetMsgIds(firstId, first, starts, count),
          expected(address, port, first, starts, count),
          `${address} first ${first} count ${count}`,
        );
      }
    }
  }
});

test('batch msgIds of long batches (a reused buffer, grown; past its cap one of their own) and a short one after them', () => {
  const address = '127.0.0.7';
  const port = 10911;
  const first = 2 ** 33 + 5;
  for (const count of [1500, 3000, 400, 2]) {
    const starts = Int32Array.from({ length: count + 1 }, (_, i) => i * 251);
    const firstId = encodeOffsetMsgId(address, port, first);
    assert.equal(
      joinOffsetMsgIds(firstId, first, starts, count),
      expected(address, port, first, starts, count),
      `count ${count}`,
    );
  }
});
