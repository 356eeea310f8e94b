/** The ACL used by the ACL tests: an admin, and a user with per-topic and per-group permissions. */
import type { AclConfig } from '../../../src/server/acl/acl-config.js';

export const ADMIN = { accessKey: 'RocketMQAdmin', secretKey: 'admin-secret-1' };
export const USER = { accessKey: 'RocketMQUser', secretKey: 'user-secret-1' };

export const TEST_ACL: AclConfig = {
  accounts: [
    { ...ADMIN, admin: true, defaultTopicPerm: 'PUB|SUB', defaultGroupPerm: 'PUB|SUB' },
    {
      ...USER,
      defaultTopicPerm: 'DENY',
      defaultGroupPerm: 'SUB',
      topicPerms: ['TopicOk=PUB|SUB', 'TopicSubOnly=SUB'],
      groupPerms: ['GroupDenied=DENY'],
    },
  ],
};
