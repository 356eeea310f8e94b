export {
  PullReader,
  DEFAULT_PULL_READER_OPTIONS,
  validatePullReaderOptions,
  queuesFromRoute,
  type PullReaderOptions,
  type ReadMessage,
  type QueueLocation,
} from './pull-reader.js';
