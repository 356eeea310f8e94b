/**
 * Clients start without a NameServer (they keep asking in the background, as Java's do), so a
 * CLI run pointed at a wrong or stopped NameServer would wait silently for messages that can
 * never come. Commands that would wait ask the NameServer once first, through Admin, and fail
 * with its error: NameServerUnreachableError, NotANameServerError (a broker's address),
 * ProxyEndpointError (a 5.x Proxy's address, a NotANameServerError too: NameServerClient tells
 * the two apart), or a ProtocolError naming a peer of another protocol.
 */
import { Admin } from '../admin/admin.js';
import type { ClientConnectionOptions } from '../client/connection-options.js';

export async function checkNameServer(
  namesrvAddr: string,
  connection: ClientConnectionOptions,
): Promise<void> {
  const admin = new Admin({ namesrvAddr, ...connection });
  try {
    await admin.clusterInfo();
  } finally {
    await admin.close();
  }
}
