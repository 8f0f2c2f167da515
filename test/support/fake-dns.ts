import { createSocket, Socket } from 'node:dgram';

/** What the name server does with a name: answer these A (IPv4) and AAAA (IPv6) addresses, or never answer. */
export type DnsAnswer = { a?: string[]; aaaa?: string[] } | 'silent';

/**
 * A name server on a loopback UDP port answering in DNS's wire format (RFC 1035): for each question of
 * type A or AAAA the addresses `answers` gives the name, an empty answer for a name it knows without
 * that type, NXDOMAIN for a name it does not know, or nothing at all ('silent': a server that never
 * replies). It records the names asked. Enough for a resolver's queries; no recursion, no TCP.
 */
export class FakeDns {
  readonly asked: string[] = [];
  private socket: Socket | null = null;
  port = 0;

  constructor(readonly answers: Map<string, DnsAnswer>) {}

  /** `ip:port`, as WEBHOOK_DNS_SERVERS takes it. */
  get server(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const socket = createSocket('udp4');
    socket.on('message', (query, peer) => {
      const reply = this.reply(query);
      if (reply) socket.send(reply, peer.port, peer.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    this.port = socket.address().port;
    this.socket = socket;
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  private reply(query: Buffer): Buffer | null {
    if (query.length < 12 || query.readUInt16BE(4) < 1) return null;
    // The question: labels up to a zero byte, then its type and class.
    const labels: string[] = [];
    let at = 12;
    while (at < query.length && query[at] !== 0) {
      const length = query[at];
      labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
      at += 1 + length;
    }
    const questionEnd = at + 5;
    if (questionEnd > query.length) return null;
    const type = query.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    this.asked.push(name);
    const answer = this.answers.get(name);
    if (answer === 'silent') return null;
    const addresses = answer === undefined ? [] : type === 1 ? (answer.a ?? []) : type === 28 ? (answer.aaaa ?? []) : [];
    const records = addresses.map((address) => {
      const data = type === 1 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const head = Buffer.alloc(12);
      head.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      head.writeUInt16BE(type, 2);
      head.writeUInt16BE(1, 4); // class IN
      head.writeUInt32BE(0, 6); // TTL 0: asked again every time
      head.writeUInt16BE(data.length, 10);
      return Buffer.concat([head, data]);
    });
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the query's id
    // A response, recursion desired and available; NXDOMAIN (3) for a name it does not know.
    header.writeUInt16BE(0x8180 | (answer === undefined ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
  }
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail = ''] = address.split('::');
  const part = (s: string) => (s ? s.split(':') : []);
  const groups = [...part(head), ...Array(8 - part(head).length - part(tail).length).fill('0'), ...part(tail)];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}
