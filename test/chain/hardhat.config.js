// The local chain of the tests (Hardhat Network started with `hardhat node`): Hardhat's default
// accounts (test mnemonic), chain id 31337 (or HARDHAT_CHAIN_ID), a block per transaction; nothing is compiled by Hardhat
// (the test token is compiled with the solc package, test/chain/token.ts).
module.exports = {
  paths: { sources: './no-sources', cache: '/tmp/ipa-hardhat-cache', artifacts: '/tmp/ipa-hardhat-artifacts' },
  networks: { hardhat: { chainId: Number(process.env.HARDHAT_CHAIN_ID || 31337) } },
};
