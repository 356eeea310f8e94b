/** mqadmin's `setConsumeMode`: a group consumes a topic by PULL or POP (Admin.setMessageRequestMode). */
import { InvalidArgumentError } from '../../../errors.js';
import { defineAdminCommand, intWord, need, target } from './define.js';

export const setConsumeModeCommand = defineAdminCommand({
  name: 'setConsumeMode',
  summary: 'Set whether a group consumes a topic by PULL or POP (clientRebalance: false consumers)',
  description: `Sends SET_MESSAGE_REQUEST_MODE to a broker or to every master of a cluster. Push consumers of
the group built with clientRebalance: false ask the broker for their queues (QUERY_ASSIGNMENT): in POP
mode they pop every queue (or, with --share-queue-num N > 0, their share plus that of the N
members after them), in PULL mode they pull their strategy's share. The setting is kept across
broker restarts.`,
  flags: {
    broker: { type: 'string', short: 'b' },
    cluster: { type: 'string', short: 'c' },
    topic: { type: 'string', short: 't' },
    group: { type: 'string', short: 'g' },
    mode: { type: 'string', short: 'm' },
    'share-queue-num': { type: 'string', short: 'q' },
  },
  docs: {
    broker: ['ADDR', 'this broker (host:port or name)'],
    cluster: ['C', 'every master of this cluster'],
    topic: ['T', 'topic name (required)'],
    group: ['G', 'consumer group name (required)'],
    mode: ['MODE', 'PULL or POP (required)'],
    'share-queue-num': ['N', 'POP: queues of the N following members shared too (default 0: every queue)'],
  },
  async run(admin, values) {
    const topic = need('topic', values.topic);
    const group = need('group', values.group);
    const mode = need('mode', values.mode);
    if (mode !== 'PULL' && mode !== 'POP')
      throw new InvalidArgumentError('--mode', `must be PULL or POP, got "${mode}"`);
    const popShareQueueNum = intWord('share-queue-num', values['share-queue-num'], 0, -1, 2 ** 31 - 1);
    const written = await admin.setMessageRequestMode(
      topic,
      group,
      mode,
      popShareQueueNum,
      target(values.broker, values.cluster),
    );
    return {
      json: { topic, group, mode, popShareQueueNum, brokers: written },
      lines: [
        ...written.map((a) => `set consume mode to ${a} success.`),
        `topic[${topic}] group[${group}] consume mode[${mode}] popShareQueueNum[${popShareQueueNum}]`,
      ],
    };
  },
});
