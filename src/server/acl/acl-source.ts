/**
 * Where the broker's ACL comes from: inline options (fixed) or a `plain_acl.yml` file, reloaded
 * when it changes (fs.watch on its directory, so editors that replace the file are seen, plus a
 * 200 ms debounce for the bursts of events one save makes). Java polls every 5 s (§4.8); a reload
 * that fails to parse keeps the previous configuration and logs why, as Java does.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { InvalidArgumentError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { compileAcl, compilePlainAclYaml, type AclConfig, type CompiledAcl } from './acl-config.js';

const RELOAD_DEBOUNCE_MS = 200;

export class AclSource {
  private acl: CompiledAcl;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly waiters: Array<() => void> = [];

  /** Throws InvalidArgumentError for a bad configuration or an unreadable file. */
  constructor(
    config: AclConfig | string,
    private readonly logger: Logger,
  ) {
    if (typeof config !== 'string') {
      this.acl = compileAcl(config);
      return;
    }
    const file = resolve(config);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new InvalidArgumentError('acl', `cannot read ${file}: ${(err as Error).message}`, { cause: err });
    }
    this.acl = compilePlainAclYaml(text, 'acl');
    const name = basename(file);
    this.watcher = watch(dirname(file), (_event, changed) => {
      if (changed !== null && changed !== name) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.reload(file), RELOAD_DEBOUNCE_MS);
      this.timer.unref();
    });
    this.watcher.unref();
  }

  get current(): CompiledAcl {
    return this.acl;
  }

  /** Resolves after the next reload attempt. */
  nextReload(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private async reload(file: string): Promise<void> {
    try {
      this.acl = compilePlainAclYaml(await readFile(file, 'utf8'), 'acl');
      this.logger.info('ACL file reloaded', { file, accounts: this.acl.accounts.size });
    } catch (err) {
      this.logger.warn('ACL file reload failed; keeping the previous configuration', { file, error: err });
    }
    for (const w of this.waiters.splice(0)) w();
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) clearTimeout(this.timer);
  }
}
