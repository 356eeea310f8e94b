/** NameServer administration (docs/admin-cli.md §1.1): DELETE_TOPIC_IN_NAMESRV (216), GET_TOPICS_BY_CLUSTER (224). */
import { RequestCode } from '../codes.js';
import { F, declareRequest } from './fields.js';

/** Always SUCCESS. With `clusterName` only that cluster's queues go; the topic goes when none is left. */
export const DeleteTopicInNamesrv = declareRequest(
  RequestCode.DELETE_TOPIC_IN_NAMESRV,
  'DELETE_TOPIC_IN_NAMESRV',
  {
    topic: F.string.required(),
    clusterName: F.string.optional(),
  },
);

/** Body `TopicList` of the topics with a queue on a broker of `cluster`; unknown cluster → empty. */
export const GetTopicsByCluster = declareRequest(RequestCode.GET_TOPICS_BY_CLUSTER, 'GET_TOPICS_BY_CLUSTER', {
  cluster: F.string.required(),
});
