/** UPDATE_AND_CREATE_TOPIC (17), protocol.md §10.2. */
import { RequestCode } from '../codes.js';
import { F, declareRequest, type HeaderOf } from './fields.js';

export const UpdateAndCreateTopic = declareRequest(
  RequestCode.UPDATE_AND_CREATE_TOPIC,
  'UPDATE_AND_CREATE_TOPIC',
  {
    topic: F.string.required(),
    defaultTopic: F.string.required(),
    readQueueNums: F.int.required(),
    writeQueueNums: F.int.required(),
    perm: F.int.required(),
    /** `SINGLE_TAG` or `MULTI_TAG`. */
    topicFilterType: F.string.required(),
    topicSysFlag: F.int.optional(),
    /** Java `Boolean order = false`: always sent. */
    order: F.bool.withDefault(false),
    /** [5.x] `+key=value,…` */
    attributes: F.string.optional(),
    /** [5.x] */
    force: F.bool.optional(),
  },
);
export type CreateTopicRequestHeader = HeaderOf<typeof UpdateAndCreateTopic.spec>;
export const encodeCreateTopicRequestHeader = UpdateAndCreateTopic.encode;
export const decodeCreateTopicRequestHeader = UpdateAndCreateTopic.decode;
