/**
 * QUERY_ASSIGNMENT / SET_MESSAGE_REQUEST_MODE bodies against text written the way Java's fastjson
 * writes these classes (fields in name order, enums by name, nulls left out).
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  encodeMessageRequestModeFile,
  encodeQueryAssignmentRequest,
  encodeQueryAssignmentResponse,
  encodeSetMessageRequestModeBody,
  parseMessageRequestModeFile,
  parseQueryAssignmentRequest,
  parseQueryAssignmentResponse,
  parseSetMessageRequestModeBody,
} from '../../../src/protocol/body/assignment.js';
import { ProtocolError } from '../../../src/errors.js';

// As `QueryAssignmentRequestBody#encode()` of a Java 5.5.0 client writes it.
const JAVA_QUERY =
  '{"clientId":"127.0.0.1@12345#8790","consumerGroup":"GID_A","messageModel":"CLUSTERING","strategyName":"AVG","topic":"TopicA"}';
// `QueryAssignmentResponseBody` of a broker with the group in POP mode (attachments null: left out).
const JAVA_ASSIGNMENT =
  '{"messageQueueAssignments":[{"messageQueue":{"brokerName":"broker-a","queueId":-1,"topic":"TopicA"},"mode":"POP"},{"messageQueue":{"brokerName":"broker-b","queueId":-1,"topic":"TopicA"},"mode":"POP"}]}';
const JAVA_SET_MODE = '{"consumerGroup":"GID_A","mode":"POP","popShareQueueNum":0,"topic":"TopicA"}';
const JAVA_MODE_FILE =
  '{"messageRequestModeMap":{"TopicA":{"GID_A":{"consumerGroup":"GID_A","mode":"POP","popShareQueueNum":2,"topic":"TopicA"}}}}';

describe('QueryAssignmentRequestBody', () => {
  it('is written byte for byte as Java writes it', () => {
    const body = encodeQueryAssignmentRequest({
      topic: 'TopicA',
      consumerGroup: 'GID_A',
      clientId: '127.0.0.1@12345#8790',
      strategyName: 'AVG',
      messageModel: 'CLUSTERING',
    });
    assert.equal(body.toString('utf8'), JAVA_QUERY);
  });

  it("reads Java's text, and refuses an unknown MessageModel", () => {
    assert.deepEqual(parseQueryAssignmentRequest(JAVA_QUERY), {
      topic: 'TopicA',
      consumerGroup: 'GID_A',
      clientId: '127.0.0.1@12345#8790',
      strategyName: 'AVG',
      messageModel: 'CLUSTERING',
    });
    assert.throws(() => parseQueryAssignmentRequest('{"messageModel":"RANDOM","topic":"T"}'), ProtocolError);
  });
});

describe('QueryAssignmentResponseBody', () => {
  it("reads a broker's POP assignment", () => {
    assert.deepEqual(parseQueryAssignmentResponse(Buffer.from(JAVA_ASSIGNMENT)), [
      { messageQueue: { topic: 'TopicA', brokerName: 'broker-a', queueId: -1 }, mode: 'POP' },
      { messageQueue: { topic: 'TopicA', brokerName: 'broker-b', queueId: -1 }, mode: 'POP' },
    ]);
  });

  it('writes what it reads', () => {
    const parsed = parseQueryAssignmentResponse(JAVA_ASSIGNMENT)!;
    assert.equal(encodeQueryAssignmentResponse(parsed).toString('utf8'), JAVA_ASSIGNMENT);
  });

  it('a null set (no valid answer) is {} and reads as undefined; an empty set is a real answer', () => {
    assert.equal(encodeQueryAssignmentResponse(undefined).toString('utf8'), '{}');
    assert.equal(parseQueryAssignmentResponse('{}'), undefined);
    assert.equal(parseQueryAssignmentResponse(undefined), undefined);
    assert.deepEqual(parseQueryAssignmentResponse('{"messageQueueAssignments":[]}'), []);
  });

  it('a missing mode is PULL (the Java field initialiser), an unknown one is refused', () => {
    const noMode =
      '{"messageQueueAssignments":[{"messageQueue":{"brokerName":"b","queueId":1,"topic":"T"}}]}';
    assert.equal(parseQueryAssignmentResponse(noMode)![0]!.mode, 'PULL');
    assert.throws(
      () => parseQueryAssignmentResponse(noMode.replace('}}]', '},"mode":"PUSH"}]')),
      /unknown MessageRequestMode PUSH/,
    );
  });
});

describe('SetMessageRequestModeRequestBody and messageRequestMode.json', () => {
  it('is written byte for byte as Java writes it', () => {
    const body = encodeSetMessageRequestModeBody({
      topic: 'TopicA',
      consumerGroup: 'GID_A',
      mode: 'POP',
      popShareQueueNum: 0,
    });
    assert.equal(body.toString('utf8'), JAVA_SET_MODE);
    assert.deepEqual(parseSetMessageRequestModeBody(body), {
      topic: 'TopicA',
      consumerGroup: 'GID_A',
      mode: 'POP',
      popShareQueueNum: 0,
    });
  });

  it('absent mode and popShareQueueNum take the Java defaults (PULL, 0)', () => {
    assert.deepEqual(parseSetMessageRequestModeBody('{"consumerGroup":"G","topic":"T"}'), {
      topic: 'T',
      consumerGroup: 'G',
      mode: 'PULL',
      popShareQueueNum: 0,
    });
    assert.throws(
      () => parseSetMessageRequestModeBody('{"popShareQueueNum":1.5,"topic":"T"}'),
      ProtocolError,
    );
  });

  it("reads and writes the broker's MessageRequestModeManager file", () => {
    const settings = parseMessageRequestModeFile(JAVA_MODE_FILE);
    assert.deepEqual(settings, [
      { topic: 'TopicA', consumerGroup: 'GID_A', mode: 'POP', popShareQueueNum: 2 },
    ]);
    assert.equal(encodeMessageRequestModeFile(settings), JAVA_MODE_FILE);
    assert.deepEqual(parseMessageRequestModeFile('{}'), []);
  });
});
