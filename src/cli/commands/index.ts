import type { CliCommand } from '../command.js';
import { benchCommand } from './bench.js';
import { chaosCommand } from './chaos.js';
import { demoCommand } from './demo.js';
import { brokerCommand } from './broker.js';
import { clusterCommand } from './cluster.js';
import { faultCommand } from './fault.js';
import { namesrvCommand } from './namesrv.js';
import { sendCommand } from './send.js';
import { recallCommand } from './recall.js';
import { consumeCommand } from './consume.js';
import { adminCommands } from './admin/index.js';
import { clusterInfoCommand, routeCommand, topicCreateCommand } from './admin/aliases.js';
import { dashboardCommand } from './dashboard.js';
import { exporterCommand } from './exporter.js';

/**
 * Every CLI command; each helper file adds itself here. `topic create`, `cluster-info` and `route`
 * are aliases of admin commands (admin/aliases.ts).
 */
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
  recallCommand,
  consumeCommand,
  routeCommand,
  ...adminCommands,
  dashboardCommand,
  exporterCommand,
];
