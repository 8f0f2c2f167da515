import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Abi, Hex } from 'viem';

export interface CompiledToken {
  abi: Abi;
  bytecode: Hex;
}

let compiled: CompiledToken | null = null;

/**
 * Compiles contracts/TestToken.sol with the solc package (the compiler ships inside it; nothing is
 * downloaded). The output is kept in the temp folder under the source's hash, so test files after the
 * first skip the few seconds solc takes to load.
 */
export function testToken(): CompiledToken {
  if (compiled) return compiled;
  const source = readFileSync(join(__dirname, 'contracts', 'TestToken.sol'), 'utf8');
  const cacheFile = join(tmpdir(), `ipa-test-token-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.json`);
  if (existsSync(cacheFile)) {
    compiled = JSON.parse(readFileSync(cacheFile, 'utf8')) as CompiledToken;
    return compiled;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc');
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(`TestToken.sol does not compile:\n${errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n')}`);
  const contract = output.contracts['TestToken.sol'].TestToken;
  compiled = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  writeFileSync(cacheFile, JSON.stringify(compiled));
  return compiled;
}
