/**
 * [5.4+] The priority property `_SYS_MSG_PRIORITY_` read back as a number, one reading for the
 * client's message views and the embedded broker: Java's `Message.getPriority` takes the value
 * as an int and anything else (absent, negative, not a number) as no priority.
 */

/** Highest priority: Java's `Message.setPriority` takes an int. */
export const MAX_PRIORITY = 0x7fffffff;

/** The priority in `value`, undefined unless it is a whole number in [0, MAX_PRIORITY]. */
export function priorityOf(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n <= MAX_PRIORITY ? n : undefined;
}
