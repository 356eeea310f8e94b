import { TransactionProducer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const committed = new Set<string>(); // stands in for the application's database

const producer = new TransactionProducer({
  namesrvAddr,
  producerGroup: 'quick-start-tx',
  // asked by the broker about a half message left UNKNOWN
  checkListener: (message) => (committed.has(message.transactionId) ? 'COMMIT' : 'ROLLBACK'),
});
await producer.start();
const result = await producer.sendMessageInTransaction(
  { topic: 'QuickStart', body: 'paid' },
  (_message, sent) => {
    committed.add(sent.msgId); // the local transaction
    return 'COMMIT';
  },
);
console.log(result.msgId, result.localTransactionState);
await producer.shutdown();
