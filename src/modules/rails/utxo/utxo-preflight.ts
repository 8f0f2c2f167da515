import type { PreflightCheck } from '../../../shared/preflight/preflight-check';
import type { NetworkConfig } from '../domain/chains-config';
import type { RailPreflightSettings } from '../domain/payment-rail';
import { chainCheck, checkName, nodeAnswersCheck, nodeUnreachableCheck, safeErrorText } from '../domain/preflight';
import { type BlockchainInfo, UtxoFollower } from './utxo-follower';

/** Headers ahead of validated blocks by more than this: the node is still catching up. */
export const UTXO_MAX_HEADER_GAP = 2;

type Network = Pick<NetworkConfig, 'mode' | 'network'>;

/**
 * Whether a UTXO node follows its chain, from `getblockchaininfo`: not in its initial block download, and
 * its validated blocks no more than UTXO_MAX_HEADER_GAP behind the headers it knows.
 */
export function utxoSyncCheck(
  config: Network,
  info: Pick<BlockchainInfo, 'blocks' | 'headers' | 'initialblockdownload' | 'verificationprogress'>,
): PreflightCheck {
  const name = checkName(config, 'sync');
  const facts = { blocks: info.blocks, headers: info.headers, initialblockdownload: info.initialblockdownload ?? null };
  const progress = typeof info.verificationprogress === 'number' ? `, ${Math.floor(info.verificationprogress * 1000) / 10}% verified` : '';
  if (info.initialblockdownload === true) {
    return {
      name,
      status: 'fail',
      detail: `the node is still in its initial block download (block ${info.blocks} of ${info.headers} headers${progress}): wait until it is synced before going live`,
      ...facts,
    };
  }
  if (info.headers - info.blocks > UTXO_MAX_HEADER_GAP) {
    return {
      name,
      status: 'fail',
      detail: `the node has validated block ${info.blocks} of ${info.headers} headers (${info.headers - info.blocks} behind): wait until it catches up before going live`,
      ...facts,
    };
  }
  return { name, status: 'ok', detail: `synced: block ${info.blocks} of ${info.headers} headers`, ...facts };
}

/**
 * The transaction index the watcher needs (`txindex=1`), from `getindexinfo`: on and synced is ok; off
 * fails (a payment taken out of a block cannot be told apart from one mined elsewhere, and refunds are
 * never confirmed); still building fails until it is done; a node without the call cannot say (warning).
 */
export function txindexCheck(config: Network, indexes: Record<string, { synced?: boolean; best_block_height?: number }> | null): PreflightCheck {
  const name = checkName(config, 'txindex');
  if (indexes === null) {
    return {
      name,
      status: 'warn',
      detail: 'the node cannot say whether it keeps a transaction index (no getindexinfo: older than Bitcoin Core 0.21); make sure it runs with txindex=1',
    };
  }
  const txindex = indexes.txindex;
  if (!txindex) {
    return {
      name,
      status: 'fail',
      detail:
        'the node runs without txindex: restart it with txindex=1 (and without prune); a transaction taken out of a block cannot be found again and refund payouts are never confirmed (docs/going-live.md section 1)',
      txindex: false,
    };
  }
  if (txindex.synced === false) {
    return {
      name,
      status: 'fail',
      detail: `the node's txindex is still being built (up to block ${txindex.best_block_height ?? '?'}): wait until getindexinfo says it is synced`,
      txindex: true,
      txindex_synced: false,
    };
  }
  return { name, status: 'ok', detail: 'the node keeps a synced txindex', txindex: true, txindex_synced: true };
}

/** A UTXO node's checks: getblockchaininfo's chain against `chain`, its sync, and getindexinfo's txindex. */
export async function utxoPreflight(config: NetworkConfig, settings: RailPreflightSettings): Promise<PreflightCheck[]> {
  const node = new UtxoFollower(config.rpcUrl, settings.timeoutMs);
  let info: BlockchainInfo;
  try {
    info = await node.blockchainInfo();
  } catch (e) {
    return [nodeUnreachableCheck(config, e)];
  }
  const checks = [nodeAnswersCheck(config, 'getblockchaininfo'), chainCheck(config, info.chain), utxoSyncCheck(config, info)];
  try {
    const problem = await node.verboseBlockProblem();
    checks.push(
      problem === null
        ? {
            name: checkName(config, 'blocks'),
            status: 'ok',
            detail: 'the node answers getblock with decoded transactions (verbosity 2), as the watcher reads blocks',
          }
        : {
            name: checkName(config, 'blocks'),
            status: 'fail',
            detail: `the node does not answer getblock <hash> 2 (${problem}): the watcher reads every block that way and would see no payment; use a node whose getblock takes verbosity 2 (Bitcoin Core 0.15 and later, Litecoin Core 0.16 and later)`,
          },
    );
  } catch (e) {
    checks.push({ name: checkName(config, 'blocks'), status: 'fail', detail: `getblock failed (${safeErrorText(e)}): check the node` });
  }
  try {
    checks.push(txindexCheck(config, await node.indexInfo()));
  } catch (e) {
    checks.push({ name: checkName(config, 'txindex'), status: 'fail', detail: `getindexinfo failed (${safeErrorText(e)}): check the node` });
  }
  return checks;
}
