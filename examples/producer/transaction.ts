import { TransactionProducer, type LocalTransactionState } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';

// The local transactions' outcomes, standing in for the application's database.
const payments = new Map<string, LocalTransactionState>();

const producer = new TransactionProducer({
  namesrvAddr,
  producerGroup: 'payments',
  // The broker asks when a half message stays UNKNOWN (or the local transaction threw).
  checkListener: (message) => payments.get(message.transactionId) ?? 'UNKNOWN',
});
await producer.start();

const result = await producer.sendMessageInTransaction(
  { topic: 'Payments', body: JSON.stringify({ order: 42, amount: 100 }) },
  async (_message, sent): Promise<LocalTransactionState> => {
    // the local transaction: runs after the half message is stored, before it is visible
    payments.set(sent.msgId, 'COMMIT'); // the check names it by msgId (UNIQ_KEY)
    return 'COMMIT'; // or 'ROLLBACK' | 'UNKNOWN'
  },
);
console.log(result.msgId, result.localTransactionState);
await producer.shutdown();
