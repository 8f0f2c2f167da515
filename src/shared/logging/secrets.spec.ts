import { loggableText, looksSecret, REDACTED_FIELD, safeFieldErrors, safeFieldPath } from './secrets';

const XPRV = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
const WIF = 'KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn';
const HEX = 'e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35';
const PHRASE = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const CLAIM = 'rc_Zk3v9QWm1pXo2LrT8yN6bH4sD0aF7gJc';

describe('looksSecret', () => {
  it.each([
    ['an extended private key', XPRV],
    ['an extended private key cut short', XPRV.slice(0, 30)],
    ['a Litecoin extended private key', 'Ltpv71G8qDifUiNetP6nmxPA5STrUVmv2J9YSmXajv8VsYBUyuPhvN9xCaQrfX2wo5xxJNtEazYCFRUu5FmokYMM79pcqz8pcdo4rNXAFPgyB4k'],
    ['a WIF key', WIF],
    ['64 hex digits', HEX],
    ['64 hex digits after 0x', `0x${HEX}`],
    ['a 12-word phrase', PHRASE],
    ['a 24-word phrase', Array.from({ length: 24 }, () => 'zoo').join(' ')],
    ['a claim token', CLAIM],
    ['an API key', 'sk_live_9hF2kLmN3pQrS5tUvWxYz1A2b3C4d5E6f7G8h9J0'],
    ['a webhook secret', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['a descriptor holding a private key', `wpkh(${XPRV}/0/*)`],
  ])('%s is secret', (_, text) => {
    expect(looksSecret(text)).toBe(true);
  });

  it.each([
    'customer_emial',
    'items',
    'metadata',
    'customer_email_address_for_notifications',
    'invoice_01a22497-ed98-726f-bdba-9ae2a3393e71',
    '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    'The multipart body could not be read because the client went away before it was done',
    'abandon abandon abandon',
    'the multipart body could not be read because the client went away before it was done',
    'xprv',
    'rc_enabled',
  ])('%p is not', (text) => {
    expect(looksSecret(text)).toBe(false);
  });
});

describe('safeFieldPath', () => {
  it.each([
    ['customer_emial', 'customer_emial'],
    ['items.0.pricee', 'items.0.pricee'],
    [XPRV, REDACTED_FIELD],
    [`items.0.${WIF}`, `items.0.${REDACTED_FIELD}`],
    [`${HEX}.__proto__`, `${REDACTED_FIELD}.__proto__`],
    [PHRASE, REDACTED_FIELD],
    ['abandon.abandon.abandon.abandon.abandon.abandon.abandon.abandon.abandon.abandon.abandon.about', REDACTED_FIELD],
  ])('%s -> %s', (path, safe) => {
    expect(safeFieldPath(path)).toBe(safe);
  });
});

describe('safeFieldErrors', () => {
  it('keeps a map without secrets as it is', () => {
    const fields = { customer_emial: 'is not a known field' };
    expect(safeFieldErrors(fields)).toBe(fields);
  });

  it('renames secret-looking fields and says why, never repeating them', () => {
    const safe = safeFieldErrors({ [XPRV]: 'is not a known field', [PHRASE]: 'is not a known field', foo: 'is not a known field' });
    expect(Object.keys(safe)).toEqual([REDACTED_FIELD, 'foo']);
    expect(safe[REDACTED_FIELD]).toMatch(/^is not a known field \(its name looks like a private key/);
    expect(JSON.stringify(safe)).not.toContain(XPRV.slice(4, 20));
  });
});

describe('loggableText', () => {
  it.each([
    [`/refund_claims/${CLAIM}`, '/refund_claims/[redacted]'],
    [`/refund_claims/${CLAIM}?lang=de`, '/refund_claims/[redacted]?lang=de'],
    ['/refund_claims/short', '/refund_claims/[redacted]'],
    ['/REFUND_CLAIMS/rc_abc%2Ddef', '/REFUND_CLAIMS/[redacted]'],
    ['/Console/Link/abc%2Ddef', '/Console/Link/[redacted]'],
    ['/refund_claims/assets/claim.js?v=3', '/refund_claims/assets/claim.js?v=3'],
    [`No route for GET /refund_claims/${CLAIM}/extra`, 'No route for GET /refund_claims/[redacted]/extra'],
    // A one-time console link, also one whose token has no digit (nothing else would call it secret-looking).
    ['/console/link/AbcdefghijKlmnopqrstUvwxyzAbcdefghijKlmnopq', '/console/link/[redacted]'],
    ['POST /console/link/abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq?x=1', 'POST /console/link/[redacted]?x=1'],
    [`/invoices/create?key=${HEX}`, '/invoices/create?key=[redacted]'],
    ['/invoices/invoice_01a22497-ed98-726f-bdba-9ae2a3393e71', '/invoices/invoice_01a22497-ed98-726f-bdba-9ae2a3393e71'],
    ['Invalid request: customer_emial is not a known field', 'Invalid request: customer_emial is not a known field'],
  ])('%s -> %s', (text, logged) => {
    expect(loggableText(text)).toBe(logged);
  });
});
