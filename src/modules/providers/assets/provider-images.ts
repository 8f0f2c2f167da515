/**
 * The provider images the service serves itself at GET /assets/providers/<file>: small, static SVG
 * badges (a coloured disc with the currency's symbol), written by hand so they carry no scripts,
 * links or external references. A symbol is ASCII text or drawn with paths, never a glyph a font may lack.
 */
function badge(fill: string, symbol: string, textColor = '#ffffff', fontSize = 26): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="${symbol}">` +
    `<circle cx="32" cy="32" r="31" fill="${fill}"/>` +
    `<text x="32" y="33" text-anchor="middle" dominant-baseline="middle" font-family="Helvetica, Arial, sans-serif" font-weight="700" font-size="${fontSize}" fill="${textColor}">${symbol}</text>` +
    '</svg>\n'
  );
}

/**
 * A badge whose symbol is drawn, not typed: the currency signs outside ASCII (₿ above all) are missing
 * from many systems' fonts and rendered as an empty box, so these never depend on a font.
 */
function drawn(fill: string, label: string, shapes: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="${label}">` +
    `<circle cx="32" cy="32" r="31" fill="${fill}"/>` +
    shapes +
    '</svg>\n'
  );
}

const STROKE = 'fill="none" stroke="#ffffff" stroke-linecap="round" stroke-linejoin="round"';

/** The bitcoin sign: a B with two strokes above and below, tilted as the usual logo is. */
const BITCOIN = drawn(
  '#f7931a',
  'BTC',
  `<g transform="rotate(14 32 32)" ${STROKE} stroke-width="5">` +
    '<path d="M24 17V47M21 17H35a7.5 7.5 0 0 1 0 15H24M24 32H37a7.5 7.5 0 0 1 0 15H21"/>' +
    '<path d="M28 11V17M34 11V17M28 47V53M34 47V53"/>' +
    '</g>',
);

/** Ether's diamond: an upper and a lower facet. */
const ETHER = drawn(
  '#627eea',
  'ETH',
  '<path d="M32 9L46 33L32 41L18 33Z" fill="#ffffff"/><path d="M32 44L46 36L32 55L18 36Z" fill="#ffffff" fill-opacity="0.85"/>',
);

/** Tether: a T with the ring across its stem. */
const TETHER = drawn(
  '#26a17b',
  'USDT',
  `<path d="M19 19H45M32 19V49" ${STROKE} stroke-width="6"/><ellipse cx="32" cy="31" rx="14" ry="4.5" ${STROKE} stroke-width="3.5"/>`,
);

/** Litecoin's Ł: an L with a slanted bar. */
const LITECOIN = drawn('#345d9d', 'LTC', `<path d="M28 15V47H45M20 37L36 29" ${STROKE} stroke-width="5.5"/>`);

/** Dogecoin's Ð: a D with a bar across its stem. */
const DOGECOIN = drawn('#c2a633', 'DOGE', `<path d="M26 17H32a15 15 0 0 1 0 30H26ZM19 32H33" ${STROKE} stroke-width="5"/>`);

const CARD =
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="Card">' +
  '<rect x="4" y="14" width="56" height="36" rx="6" fill="#3a4a5c"/>' +
  '<rect x="4" y="21" width="56" height="7" fill="#1f2933"/>' +
  '<rect x="10" y="36" width="18" height="5" rx="2" fill="#f5c542"/>' +
  '</svg>\n';

export const PROVIDER_IMAGES: Readonly<Record<string, string>> = {
  'bitcoin.svg': BITCOIN,
  'ethereum.svg': ETHER,
  'usdt.svg': TETHER,
  'usdc.svg': badge('#2775ca', '$', '#ffffff', 32),
  'tron.svg': badge('#eb0029', 'TRX', '#ffffff', 20),
  'solana.svg': badge('#14151a', 'SOL', '#14f195', 20),
  'polygon.svg': badge('#8247e5', 'POL', '#ffffff', 20),
  'bnb.svg': badge('#f3ba2f', 'BNB', '#1e2026', 20),
  'litecoin.svg': LITECOIN,
  'dogecoin.svg': DOGECOIN,
  'bitcoin-cash.svg': badge('#0ac18e', 'BCH', '#ffffff', 20),
  'ripple.svg': badge('#23292f', 'XRP', '#ffffff', 20),
  'card.svg': CARD,
};

export function providerImage(file: string): string | null {
  return Object.prototype.hasOwnProperty.call(PROVIDER_IMAGES, file) ? PROVIDER_IMAGES[file] : null;
}
