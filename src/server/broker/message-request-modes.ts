/**
 * Which groups consume which topics by POP (Java `MessageRequestModeManager`): the settings of
 * SET_MESSAGE_REQUEST_MODE per topic and group, kept in `config/messageRequestMode.json` in Java's
 * format, so they survive a restart. QUERY_ASSIGNMENT reads them (processors/assignment.ts).
 */
import type { Logger } from '../../observability/logger.js';
import {
  encodeMessageRequestModeFile,
  parseMessageRequestModeFile,
  type MessageRequestModeSetting,
} from '../../protocol/body/assignment.js';
import { StateFile } from './state-file.js';

export class MessageRequestModeManager {
  /** `topic` → `group` → setting. */
  private readonly table = new Map<string, Map<string, MessageRequestModeSetting>>();
  private readonly state: StateFile;

  constructor(
    file: string,
    private readonly logger: Logger,
  ) {
    this.state = new StateFile(file);
  }

  async load(): Promise<void> {
    await this.state.load(
      (text) => {
        for (const s of parseMessageRequestModeFile(text)) this.put(s);
      },
      this.logger,
      'message request modes',
    );
  }

  get(topic: string, group: string): MessageRequestModeSetting | undefined {
    return this.table.get(topic)?.get(group);
  }

  /** Replaces the setting of `setting.topic` and `setting.consumerGroup`; resolves once it is on disk. */
  set(setting: MessageRequestModeSetting): Promise<void> {
    this.put({ ...setting });
    return this.state.save(() => encodeMessageRequestModeFile(this.all()));
  }

  private put(s: MessageRequestModeSetting): void {
    let groups = this.table.get(s.topic);
    if (groups === undefined) this.table.set(s.topic, (groups = new Map()));
    groups.set(s.consumerGroup, s);
  }

  private *all(): Iterable<MessageRequestModeSetting> {
    for (const groups of this.table.values()) yield* groups.values();
  }
}
