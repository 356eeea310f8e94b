/** `rocketmq-ts admin <command>`: mqadmin's commands on the Admin client. */
import type { CliCommand } from '../../command.js';
import {
  createAclCommand,
  createUserCommand,
  deleteAclCommand,
  deleteUserCommand,
  getAclCommand,
  getUserCommand,
  listAclCommand,
  listUserCommand,
  updateAclCommand,
  updateUserCommand,
} from './auth.js';
import {
  brokerStatusCommand,
  clusterListCommand,
  getBrokerConfigCommand,
  updateBrokerConfigCommand,
} from './cluster.js';
import {
  consumerConnectionCommand,
  consumerProgressCommand,
  consumerStatusCommand,
  deleteSubGroupCommand,
  producerConnectionCommand,
  resetOffsetByTimeCommand,
  updateSubGroupCommand,
} from './consumer.js';
import { setConsumeModeCommand } from './consume-mode.js';
import {
  queryMsgByIdCommand,
  queryMsgByKeyCommand,
  queryMsgByOffsetCommand,
  queryMsgTraceByIdCommand,
} from './message.js';
import {
  deleteTopicCommand,
  topicListCommand,
  topicRouteCommand,
  topicStatusCommand,
  updateTopicCommand,
} from './topic.js';

export const adminCommands: CliCommand[] = [
  clusterListCommand,
  brokerStatusCommand,
  topicListCommand,
  topicRouteCommand,
  topicStatusCommand,
  updateTopicCommand,
  deleteTopicCommand,
  consumerProgressCommand,
  consumerConnectionCommand,
  producerConnectionCommand,
  consumerStatusCommand,
  resetOffsetByTimeCommand,
  queryMsgByKeyCommand,
  queryMsgByIdCommand,
  queryMsgByOffsetCommand,
  queryMsgTraceByIdCommand,
  updateSubGroupCommand,
  deleteSubGroupCommand,
  setConsumeModeCommand,
  getBrokerConfigCommand,
  updateBrokerConfigCommand,
  createUserCommand,
  updateUserCommand,
  deleteUserCommand,
  getUserCommand,
  listUserCommand,
  createAclCommand,
  updateAclCommand,
  deleteAclCommand,
  getAclCommand,
  listAclCommand,
];
