import { types } from 'pg';
import { parseTimestamptzText, serviceTypeParsers, TIMESTAMPTZ_OID } from './timestamps';

const pgParser = types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number;
const service = serviceTypeParsers().getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number;

/** A timestamptz as PostgreSQL writes it for an instant seen from a zone `offsetMinutes` east of UTC. */
function pgText(ms: number, fractionDigits: number, offsetMinutes: number, microseconds = 0): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString();
  const fraction = fractionDigits ? `.${(local.slice(20, 23) + String(microseconds).padStart(3, '0')).slice(0, fractionDigits)}` : '';
  const abs = Math.abs(offsetMinutes);
  const zone = `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${abs % 60 ? `:${String(abs % 60).padStart(2, '0')}` : ''}`;
  return `${local.slice(0, 10)} ${local.slice(11, 19)}${fraction}${zone}`;
}

describe('parseTimestamptzText', () => {
  it.each([
    ['2026-11-21 19:57:27.686123+00', '2026-11-21T19:57:27.686Z'],
    ['2026-11-21 19:57:27+00', '2026-11-21T19:57:27.000Z'],
    ['2026-11-21 19:57:27.5+00', '2026-11-21T19:57:27.500Z'],
    ['2026-11-21 19:57:27.05+00', '2026-11-21T19:57:27.050Z'],
    ['2026-01-01 01:30:00+05:30', '2025-12-31T20:00:00.000Z'],
    ['2026-03-01 00:00:00-03', '2026-03-01T03:00:00.000Z'],
    ['1900-01-01 00:00:00+00:09:21', '1899-12-31T23:50:39.000Z'],
    ['2024-02-29 23:59:59.999999+00', '2024-02-29T23:59:59.999Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseTimestamptzText(text)?.toISOString()).toBe(iso);
    expect((pgParser(text) as Date).toISOString()).toBe(iso);
  });

  it("gives what pg's own parser gives for any instant, fraction and zone", () => {
    const zones = [0, 60, -180, 330, 345, -570, 840, -720];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let n = 0; n < 5000; n++) {
      const ms = Date.UTC(1000, 0, 1) + (next() % 9000) * 365 * 86_400_000 + next() * 13;
      const text = pgText(ms, next() % 7, zones[next() % zones.length], next() % 1000);
      expect([text, parseTimestamptzText(text)?.getTime()]).toEqual([text, (pgParser(text) as Date).getTime()]);
    }
  });

  it.each([
    'infinity',
    '-infinity',
    '0044-03-15 12:00:00+00 BC',
    '0099-01-01 00:00:00+00',
    '12026-01-01 00:00:00+00',
    '2026-11-21T19:57:27+00',
    '2026-11-21 19:57:27',
    '2026-11-21 19:57:27.+00',
    '2026-11-21 19:57:27+0',
    '2026-13-01 00:00:00+00',
    '2026-11-21 19:57:27+00 ',
    '2026-1a-21 19:57:27+00',
    '2026-11-21 1x:57:27+00',
    '2026-11-21 19:5 :27+00',
  ])("leaves %s to pg's parser", (text) => {
    expect(parseTimestamptzText(text)).toBeNull();
  });

  it("the connections' parser falls back to pg's for what it leaves", () => {
    expect(service('infinity')).toBe(Infinity);
    expect((service('0044-03-15 12:00:00+00 BC') as Date).getTime()).toBe((pgParser('0044-03-15 12:00:00+00 BC') as Date).getTime());
    expect((service('0099-06-01 00:00:00+00') as Date).toISOString()).toBe((pgParser('0099-06-01 00:00:00+00') as Date).toISOString());
    expect((service('2026-11-21 19:57:27.686+00') as Date).toISOString()).toBe('2026-11-21T19:57:27.686Z');
  });

  it("changes no other type's parser", () => {
    const parsers = serviceTypeParsers();
    for (const oid of [16, 20, 21, 23, 700, 701, 1082, 1114, 1700, 3802]) expect(parsers.getTypeParser(oid, 'text')).toBe(types.getTypeParser(oid, 'text'));
    expect(parsers.getTypeParser(TIMESTAMPTZ_OID, 'binary')).toBe(types.getTypeParser(TIMESTAMPTZ_OID, 'binary'));
  });
});
