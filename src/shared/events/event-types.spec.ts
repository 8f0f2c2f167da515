import type { EntityManager } from 'typeorm';
import type { Scope } from '../auth/request-context';
import { DomainEvent } from './domain-event';
import { declareEvents, eventClassOf, EVENT_TYPES } from './event-types';
import type { EventOutbox } from './outbox';

interface ParcelView {
  id: string;
  weight: string;
}
const PARCEL_EVENT_TYPES = ['parcel.sent', 'parcel.lost'] as const;
class ParcelEvent extends DomainEvent<(typeof PARCEL_EVENT_TYPES)[number], ParcelView> {}
const PARCEL_EVENTS = declareEvents(ParcelEvent, PARCEL_EVENT_TYPES);

// The outbox itself (a Nest provider) is exercised by the e2e tests; here only its types are.
const scope = { organizationId: 'org_1', mode: 'test' } as Scope;

describe('event definitions', () => {
  it('declares each type with its class and returns one definition per type', () => {
    expect(PARCEL_EVENTS['parcel.sent']).toEqual({ type: 'parcel.sent', cls: ParcelEvent });
    expect(eventClassOf('parcel.lost')).toBe(ParcelEvent);
    expect(EVENT_TYPES).toEqual(expect.arrayContaining(['parcel.lost', 'parcel.sent']));
  });

  it('makes an unknown type, a wrong object or a type of another class a compile error (checked by npm run typecheck)', () => {
    const m = {} as EntityManager;
    const outbox = {} as EventOutbox;
    const compileOnly = () => {
      // @ts-expect-error -- not a declared parcel type
      void PARCEL_EVENTS['parcel.found'];
      // @ts-expect-error -- the object lacks `weight`
      void outbox.record(m, scope, PARCEL_EVENTS['parcel.sent'], { id: 'parcel_1' });
      // @ts-expect-error -- a bare type name is no definition
      void outbox.record(m, scope, 'parcel.sent', { id: 'parcel_1', weight: '1' });
      // @ts-expect-error -- a type outside the class's own union
      declareEvents(ParcelEvent, ['invoice.created'] as const);
    };
    expect(typeof compileOnly).toBe('function');
  });
});
