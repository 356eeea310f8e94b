import type { CliCommand } from '../command.js';
import { benchCommand } from './bench.js';
import { chaosCommand } from './chaos.js';
import { demoCommand } from './demo.js';
import { brokerCommand } from './broker.js';
import { clusterInfoCommand } from './cluster-info.js';
import { clusterCommand } from './cluster.js';
import { faultCommand } from './fault.js';
import { namesrvCommand } from './namesrv.js';
import { topicCreateCommand } from './topic-create.js';
import { sendCommand } from './send.js';
import { consumeCommand } from './consume.js';
import { routeCommand } from './route.js';
import { adminCommands } from './admin/index.js';
import { dashboardCommand } from './dashboard.js';

/** Every CLI command; each helper file adds itself here. */
export const commands: CliCommand[] = [
  namesrvCommand,
  brokerCommand,
  clusterCommand,
  topicCreateCommand,
  clusterInfoCommand,
  faultCommand,
  demoCommand,
  chaosCommand,
  benchCommand,
  sendCommand,
  consumeCommand,
  routeCommand,
  ...adminCommands,
  dashboardCommand,
];
