// Loaded into a service process the tests start (`node --require`, see startServer in server.ts): every
// port a server of that process (or of its cluster workers) starts listening on is appended to the file
// named by TEST_LISTEN_REPORT. The test then knows that the service answering on a port is its own, not
// another test's service that holds the port its child could not take.
const { appendFileSync } = require('node:fs');
const net = require('node:net');

const file = process.env.TEST_LISTEN_REPORT;
if (file) {
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (...args) {
    this.once('listening', () => {
      const address = this.address();
      if (!address || typeof address !== 'object') return;
      try {
        appendFileSync(file, `${address.port}\n`);
      } catch {
        // A test aid never stops the service: without the line the test only waits for it in vain.
      }
    });
    return listen.apply(this, args);
  };
}
