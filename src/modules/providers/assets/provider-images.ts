/**
 * The provider images the service serves itself at GET /assets/providers/<file>: small, static SVG
 * badges (a coloured disc with the currency's symbol), written by hand so they carry no scripts,
 * links or external references.
 */
function badge(fill: string, symbol: string, textColor = '#ffffff', fontSize = 26): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="${symbol}">` +
    `<circle cx="32" cy="32" r="31" fill="${fill}"/>` +
    `<text x="32" y="33" text-anchor="middle" dominant-baseline="middle" font-family="Helvetica, Arial, sans-serif" font-weight="700" font-size="${fontSize}" fill="${textColor}">${symbol}</text>` +
    '</svg>\n'
  );
}

const CARD =
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="Card">' +
  '<rect x="4" y="14" width="56" height="36" rx="6" fill="#3a4a5c"/>' +
  '<rect x="4" y="21" width="56" height="7" fill="#1f2933"/>' +
  '<rect x="10" y="36" width="18" height="5" rx="2" fill="#f5c542"/>' +
  '</svg>\n';

export const PROVIDER_IMAGES: Readonly<Record<string, string>> = {
  'bitcoin.svg': badge('#f7931a', '₿', '#ffffff', 32),
  'ethereum.svg': badge('#627eea', 'Ξ', '#ffffff', 32),
  'usdt.svg': badge('#26a17b', '₮', '#ffffff', 32),
  'usdc.svg': badge('#2775ca', '$', '#ffffff', 32),
  'tron.svg': badge('#eb0029', 'TRX', '#ffffff', 20),
  'solana.svg': badge('#14151a', 'SOL', '#14f195', 20),
  'polygon.svg': badge('#8247e5', 'POL', '#ffffff', 20),
  'bnb.svg': badge('#f3ba2f', 'BNB', '#1e2026', 20),
  'litecoin.svg': badge('#345d9d', 'Ł', '#ffffff', 32),
  'dogecoin.svg': badge('#c2a633', 'Ð', '#ffffff', 32),
  'bitcoin-cash.svg': badge('#0ac18e', 'BCH', '#ffffff', 20),
  'ripple.svg': badge('#23292f', 'XRP', '#ffffff', 20),
  'card.svg': CARD,
};

export function providerImage(file: string): string | null {
  return Object.prototype.hasOwnProperty.call(PROVIDER_IMAGES, file) ? PROVIDER_IMAGES[file] : null;
}
