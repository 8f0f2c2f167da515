import { viem } from './viem';
import type { PreflightCheck } from '../../../shared/preflight/preflight-check';
import type { NetworkConfig } from '../domain/chains-config';
import type { RailPreflightSettings } from '../domain/payment-rail';
import { chainCheck, checkName, nodeAnswersCheck, nodeUnreachableCheck } from '../domain/preflight';

/**
 * A latest block older than this means the node is not following its chain: Ethereum, Polygon and BNB
 * Smart Chain make a block every few seconds, their testnets too.
 */
export const EVM_MAX_BLOCK_AGE_SECONDS = 600;

/** `eth_syncing` as nodes answer it: false when synced, else an object with hex block numbers. */
export type EvmSyncing = false | { currentBlock?: string; highestBlock?: string };

/**
 * Whether an EVM node follows its chain: `eth_syncing` says it is not syncing, and its latest block is
 * at most `maxAgeSeconds` old (a node cut off from its peers says it is not syncing, and stays behind).
 */
export function evmSyncCheck(
  config: Pick<NetworkConfig, 'mode' | 'network'>,
  answer: { syncing: EvmSyncing; latest: { number: bigint; timestamp: bigint } },
  now: Date,
  maxAgeSeconds = EVM_MAX_BLOCK_AGE_SECONDS,
): PreflightCheck {
  const name = checkName(config, 'sync');
  const age = Math.floor(now.getTime() / 1000) - Number(answer.latest.timestamp);
  const facts = { latest_block: answer.latest.number.toString(), latest_block_age_seconds: age };
  if (answer.syncing !== false) {
    const current = answer.syncing.currentBlock ? BigInt(answer.syncing.currentBlock).toString() : '?';
    const highest = answer.syncing.highestBlock ? BigInt(answer.syncing.highestBlock).toString() : '?';
    return {
      name,
      status: 'fail',
      detail: `the node is still syncing (block ${current} of ${highest}, eth_syncing): wait until it reaches the tip before going live`,
      ...facts,
    };
  }
  if (age > maxAgeSeconds) {
    return {
      name,
      status: 'fail',
      detail: `the node's latest block (${answer.latest.number}) is ${age} s old, more than ${maxAgeSeconds} s: it is not following the chain (peers, consensus client, or still syncing); fix the node before going live`,
      ...facts,
    };
  }
  return { name, status: 'ok', detail: `synced: latest block ${answer.latest.number}, ${Math.max(0, age)} s old`, ...facts };
}

/** An EVM node's checks: eth_chainId against `chain_id`, then eth_syncing and the latest block's age. */
export async function evmPreflight(config: NetworkConfig, settings: RailPreflightSettings): Promise<PreflightCheck[]> {
  const { createPublicClient, http } = viem();
  const client = createPublicClient({ transport: http(config.rpcUrl, { retryCount: 0, timeout: settings.timeoutMs }) });
  let chainId: number;
  try {
    chainId = await client.getChainId();
  } catch (e) {
    return [nodeUnreachableCheck(config, e)];
  }
  const checks = [nodeAnswersCheck(config, 'eth_chainId'), chainCheck(config, String(chainId))];
  try {
    const [answer, latest] = await Promise.all([
      // viem's public actions have no eth_syncing; the transport asks it as any other call.
      client.transport.request({ method: 'eth_syncing' }),
      client.getBlock({ blockTag: 'latest' }),
    ]);
    const syncing: EvmSyncing = answer && typeof answer === 'object' ? answer : false;
    checks.push(evmSyncCheck(config, { syncing, latest: { number: latest.number ?? 0n, timestamp: latest.timestamp } }, settings.now));
  } catch (e) {
    checks.push({ ...nodeUnreachableCheck(config, e), name: checkName(config, 'sync') });
  }
  return checks;
}
