import type { PreflightCheck } from '../../../shared/preflight/preflight-check';
import { checkName, chainCheck, nodeAnswersCheck, nodeUnreachableCheck, safeErrorText } from '../domain/preflight';
import type { RailPreflightSettings } from '../domain/payment-rail';
import { evmSyncCheck, type EvmSyncing } from '../evm/evm-preflight';
import { JsonRpcClient, JsonRpcError, METHOD_NOT_FOUND } from './tron-json-rpc';
import type { TronNetworkConfig } from './tron-rail';

interface RawBlock {
  number: string;
  timestamp: string;
}

/**
 * A Tron node's go-live checks over its JSON-RPC: eth_chainId against `chain_id`; synced (eth_syncing where
 * the node has it, and the latest block's age: Tron makes a block every 3 s); with `finality: solidified`, the
 * `finalized` block answers (the watcher completes payments on it); and the HTTP API answers where
 * `http_api_url` is set (without it TRX is not taken, which is said as a warning).
 */
export async function tronPreflight(config: TronNetworkConfig, settings: RailPreflightSettings): Promise<PreflightCheck[]> {
  const rpc = new JsonRpcClient(config.rpcUrl, settings.timeoutMs);
  let chainId: string;
  try {
    chainId = await rpc.call<string>('eth_chainId');
  } catch (e) {
    return [nodeUnreachableCheck(config, e)];
  }
  const checks = [nodeAnswersCheck(config, 'eth_chainId'), chainCheck(config, BigInt(chainId).toString())];
  try {
    const syncing = await rpc.call<EvmSyncing>('eth_syncing').catch((e: unknown) => {
      // Not every java-tron-compatible endpoint has eth_syncing: the latest block's age tells alone then.
      if (e instanceof JsonRpcError && e.code === METHOD_NOT_FOUND) return false as const;
      throw e;
    });
    const latest = await rpc.call<RawBlock>('eth_getBlockByNumber', ['latest', false]);
    checks.push(
      evmSyncCheck(
        config,
        { syncing: syncing && typeof syncing === 'object' ? syncing : false, latest: { number: BigInt(latest.number), timestamp: BigInt(latest.timestamp) } },
        settings.now,
      ),
    );
  } catch (e) {
    checks.push({ ...nodeUnreachableCheck(config, e), name: checkName(config, 'sync') });
  }
  if (config.finality === 'solidified') {
    const name = checkName(config, 'finalized');
    try {
      const block = await rpc.call<RawBlock | null>('eth_getBlockByNumber', ['finalized', false]);
      checks.push(
        block
          ? { name, status: 'ok', detail: `the node names its solidified block (${BigInt(block.number)})` }
          : {
              name,
              status: 'fail',
              detail: 'the node answers no "finalized" block: payments would never complete; use a node that serves it, or set finality to "confirmations"',
            },
      );
    } catch (e) {
      checks.push({
        name,
        status: 'fail',
        detail: `the node refuses the "finalized" block (${safeErrorText(e)}): payments would never complete; use a node that serves it, or set finality to "confirmations"`,
      });
    }
  }
  checks.push(await httpApiCheck(config, settings));
  return checks;
}

async function httpApiCheck(config: TronNetworkConfig, settings: RailPreflightSettings): Promise<PreflightCheck> {
  const name = checkName(config, 'http_api');
  if (config.httpApiUrl === null)
    return { name, status: 'warn', detail: 'no http_api_url: TRX is not taken (only tokens), since the JSON-RPC shows a TRC-10 transfer as a TRX one' };
  try {
    const response = await fetch(`${config.httpApiUrl}/wallet/getnowblock`, { method: 'POST', signal: AbortSignal.timeout(settings.timeoutMs) });
    if (!response.ok) return { name, status: 'fail', detail: `the HTTP API answered HTTP ${response.status}: TRX payments cannot be checked` };
    return { name, status: 'ok', detail: 'the HTTP API answers (TRX transfers are told from TRC-10 ones)' };
  } catch (e) {
    return { name, status: 'fail', detail: `the HTTP API does not answer (${safeErrorText(e)}): TRX payments cannot be checked` };
  }
}
