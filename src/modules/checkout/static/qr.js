// The payment's QR code and the copy buttons.
import qrcode from './qrcode.mjs';
import { h, tr } from './page.js';

export function copyButton(value, label) {
  const button = h('button', { type: 'button', class: 'copy', 'aria-label': label, text: tr('copy') });
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value);
      button.textContent = tr('copied');
    } catch {
      button.textContent = tr('copy_failed');
    }
    setTimeout(() => {
      button.textContent = tr('copy');
    }, 2000);
  });
  return button;
}

/** The QR code of the payment URI as an SVG built with DOM calls (the CSP allows no inline markup). */
export function qrSvg(text) {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const quiet = 4;
  const size = n + quiet * 2;
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('class', 'qr');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', tr('qr_label'));
  svg.setAttribute('shape-rendering', 'crispEdges');
  const bg = document.createElementNS(ns, 'rect');
  bg.setAttribute('width', String(size));
  bg.setAttribute('height', String(size));
  bg.setAttribute('fill', '#ffffff');
  svg.append(bg);
  let d = '';
  for (let row = 0; row < n; row += 1) {
    for (let col = 0; col < n; col += 1) if (qr.isDark(row, col)) d += `M${col + quiet} ${row + quiet}h1v1h-1z`;
  }
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000000');
  svg.append(path);
  return svg;
}
