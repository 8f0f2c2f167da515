#!/usr/bin/env node
// A local EVM chain for trying live payments (README "Walkthrough: a live USDT payment on a local chain").
//   node scripts/local-chain.js deploy [rpc]                 deploys the 6-decimal test USDT, prints its address
//   node scripts/local-chain.js send <token> <to> <amount> [rpc]  sends <amount> USDT (decimal) from a funded account
//   node scripts/local-chain.js mine <blocks> [rpc]           mines blocks (confirmations)
// The chain itself: npx hardhat node --config test/chain/hardhat.config.js --port 8545
// Accounts are Hardhat's funded test accounts (test mnemonic): never use them on a real network.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { createPublicClient, createTestClient, createWalletClient, http, parseAbi, parseUnits } = require('viem');
const { mnemonicToAccount } = require('viem/accounts');

const MNEMONIC = 'test test test test test test test test test test test junk';
const [command, ...args] = process.argv.slice(2);
const rpcOf = (i) => args[i] ?? 'http://127.0.0.1:8545';
const chain = { id: 31337, name: 'Local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } };
const ABI = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

async function main() {
  if (command === 'deploy') {
    const solc = require('solc');
    const source = readFileSync(join(__dirname, '..', 'test', 'chain', 'contracts', 'TestToken.sol'), 'utf8');
    const input = { language: 'Solidity', sources: { 'TestToken.sol': { content: source } }, settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
    const contract = JSON.parse(solc.compile(JSON.stringify(input))).contracts['TestToken.sol'].TestToken;
    const account = mnemonicToAccount(MNEMONIC, { addressIndex: 0 });
    const transport = http(rpcOf(0));
    const hash = await createWalletClient({ chain, account, transport }).deployContract({ abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}`, args: ['Test USDT', 'USDT', 10n ** 15n] });
    const receipt = await createPublicClient({ chain, transport }).waitForTransactionReceipt({ hash });
    process.stdout.write(`${receipt.contractAddress}\n`);
  } else if (command === 'send') {
    const [token, to, amount] = args;
    const account = mnemonicToAccount(MNEMONIC, { addressIndex: 0 });
    const transport = http(rpcOf(3));
    const hash = await createWalletClient({ chain, account, transport }).writeContract({ address: token, abi: ABI, functionName: 'transfer', args: [to, parseUnits(amount, 6)] });
    await createPublicClient({ chain, transport }).waitForTransactionReceipt({ hash });
    process.stdout.write(`${hash}\n`);
  } else if (command === 'mine') {
    await createTestClient({ chain, mode: 'hardhat', transport: http(rpcOf(1)) }).mine({ blocks: Number(args[0] ?? 1) });
  } else {
    process.stderr.write('usage: local-chain.js deploy [rpc] | send <token> <to> <amount> [rpc] | mine <blocks> [rpc]\n');
    process.exit(2);
  }
}

main().catch((e) => {
  process.stderr.write(`${e.shortMessage ?? e.message}\n`);
  process.exit(1);
});
