// Draws the overview's charts from the JSON block the server rendered (no inline script: the
// page's Content-Security-Policy allows scripts from the service only). Chart.js is loaded before.
(function () {
  'use strict';
  function draw() {
    var block = document.getElementById('chart-data');
    if (!block || typeof window.Chart === 'undefined') return;
    var d = JSON.parse(block.textContent || '{}');
    var common = { responsive: true, animation: false, plugins: { legend: { display: false } } };
    var volume = document.getElementById('chart-volume');
    if (volume)
      new window.Chart(volume, {
        type: 'bar',
        data: { labels: d.labels, datasets: [{ label: d.titles.volume, data: d.volume.map(Number), backgroundColor: '#1a5fb4' }] },
        options: common,
      });
    var invoices = document.getElementById('chart-invoices');
    if (invoices)
      new window.Chart(invoices, {
        type: 'line',
        data: { labels: d.labels, datasets: [{ label: d.titles.invoices, data: d.invoices, borderColor: '#26a269' }] },
        options: common,
      });
    var status = document.getElementById('chart-status');
    if (status)
      new window.Chart(status, {
        type: 'doughnut',
        data: { labels: d.statusLabels, datasets: [{ label: d.titles.status, data: d.statusCounts }] },
        options: { responsive: true, animation: false },
      });
    var providers = document.getElementById('chart-providers');
    if (providers)
      new window.Chart(providers, {
        type: 'bar',
        data: { labels: d.providerLabels, datasets: [{ label: d.titles.providers, data: d.providerVolumes.map(Number), backgroundColor: '#e66100' }] },
        options: Object.assign({}, common, { indexAxis: 'y' }),
      });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', draw);
  else draw();
})();
