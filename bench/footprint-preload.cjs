// Loaded with `node --require` by bench/start-footprint.js: on SIGUSR2 the service's process writes what it
// holds to FOOTPRINT_FILE: CommonJS modules loaded (require.cache; ES modules have no such registry), V8's
// heap in use and the resident set. Nothing else changes in the process.
'use strict';
const { writeFileSync, readFileSync } = require('node:fs');
process.on('SIGUSR2', () => {
  if (global.gc) global.gc();
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
  const heap = process.memoryUsage();
  writeFileSync(
    process.env.FOOTPRINT_FILE,
    JSON.stringify({
      ...(process.env.FOOTPRINT_LIST === 'true' && { list: Object.keys(require.cache) }),
      cjs_modules: Object.keys(require.cache).length,
      heap_used_mb: heap.heapUsed / 2 ** 20,
      heap_total_mb: heap.heapTotal / 2 ** 20,
      rss_mb: rss,
    }),
  );
});
