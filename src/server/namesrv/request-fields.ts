/**
 * Reads a request's extFields on the server side. A missing or malformed required field throws
 * {@link BadRequestError}; the remoting server turns a thrown error into a SYSTEM_ERROR response
 * whose remark is the message, which is what a Java server answers for a header it cannot decode.
 */
import { RocketMQError } from '../../errors.js';
import type { RemotingCommand } from '../../protocol/command.js';
import { ResponseCode } from '../../protocol/codes.js';

/** A request the server cannot act on; `responseCode` is what the server answers. */
export class BadRequestError extends RocketMQError {
  readonly responseCode: number;
  constructor(message: string, responseCode: number = ResponseCode.SYSTEM_ERROR) {
    super('ERR_BAD_REQUEST', message, { retriable: false });
    this.responseCode = responseCode;
  }
}

const INTEGER = /^-?\d+$/;

export class RequestFields {
  private readonly ext: Record<string, string>;
  constructor(request: RemotingCommand) {
    this.ext = request.extFields ?? {};
  }

  /** Raw value, `undefined` when absent or empty (Java treats both as null). */
  optString(...names: string[]): string | undefined {
    for (const name of names) {
      const value = this.ext[name];
      if (value !== undefined && value !== '') return value;
    }
    return undefined;
  }

  string(...names: string[]): string {
    const value = this.optString(...names);
    if (value === undefined) throw new BadRequestError(`the custom field <${names[0]}> is null`);
    return value;
  }

  optInt(...names: string[]): number | undefined {
    const raw = this.optString(...names);
    if (raw === undefined) return undefined;
    const trimmed = raw.trim();
    if (!INTEGER.test(trimmed))
      throw new BadRequestError(`the custom field <${names[0]}> is not a number: ${raw}`);
    const value = Number(trimmed);
    if (!Number.isSafeInteger(value))
      throw new BadRequestError(`the custom field <${names[0]}> is out of range: ${raw}`);
    return value;
  }

  int(...names: string[]): number {
    const value = this.optInt(...names);
    if (value === undefined) throw new BadRequestError(`the custom field <${names[0]}> is null`);
    return value;
  }

  /** Java `Boolean.parseBoolean`: only a case-insensitive "true" is true. */
  optBool(...names: string[]): boolean | undefined {
    const raw = this.optString(...names);
    return raw === undefined ? undefined : raw.toLowerCase() === 'true';
  }

  bool(name: string, fallback: boolean): boolean {
    return this.optBool(name) ?? fallback;
  }
}
