/** `rocketmq-ts recall`: Producer.recallMessage from the command line (docs/producer.md §3.5). */
import type { CliCommand } from '../command.js';
import { parseFlags, requiredFlag } from '../flags.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP } from '../security-flags.js';
import { cliProducer } from './send.js';

const FLAGS = {
  namesrv: { type: 'string' },
  topic: { type: 'string' },
  handle: { type: 'string' },
  group: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  ...CLIENT_SECURITY_FLAGS,
} as const;

export const recallCommand: CliCommand = {
  path: ['recall'],
  summary: 'Recall a timer message before its time (5.3.2+ brokers with recallMessageEnable=true)',
  help: `Usage: rocketmq-ts recall --namesrv HOST:PORT --topic T --handle H [options]

Cancels a timer message (sent with deliverAt / deliverAfterMs, e.g. by the send command's
deliver-after flag) before it is delivered: H is the recallHandle its send printed. Prints
the recalled msgId.
Fails when the broker has recall off (recallMessageEnable=false, the default), when the
message's time has come, or when the handle is not one of topic T.

Options:
${CLIENT_SECURITY_HELP}
  --namesrv A         NameServer (or 5.x Proxy) address(es), "h:p;h:p" (required)
  --topic T           the topic the message was sent to (required)
  --handle H          the recallHandle of its SendResult (required)
  --group G           producer group (default rocketmq_ts_cli)
  --timeout MS        sendMsgTimeout, the budget of the recall (default 3000)
  --json              one JSON line {msgId}`,
  flags: FLAGS,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const { producer, topic } = cliProducer(values);
    const handle = requiredFlag('--handle', values.handle);
    await producer.start();
    try {
      const msgId = await producer.recallMessage(topic, handle);
      console.log(values.json ? JSON.stringify({ msgId }) : `recalled ${msgId}`);
      return 0;
    } finally {
      await producer.shutdown();
    }
  },
};
