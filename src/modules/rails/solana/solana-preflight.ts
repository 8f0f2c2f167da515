import type { PreflightCheck } from '../../../shared/preflight/preflight-check';
import { chainCheck, checkName, nodeAnswersCheck, nodeUnreachableCheck, safeErrorText } from '../domain/preflight';
import type { RailPreflightSettings } from '../domain/payment-rail';
import type { SolanaNetworkConfig } from './solana-rail';
import { SolanaRpc } from './solana-rpc';

/** A confirmed slot older than this is a node behind (Solana makes a slot every 0.4 s). */
export const MAX_SLOT_AGE_SECONDS = 120;

/**
 * A Solana node's go-live checks over its JSON-RPC: getGenesisHash against `genesis_hash` (the cluster);
 * getHealth (a node behind the cluster answers an error); the age of its latest confirmed slot
 * (getSlot, getBlockTime); and, with `commitment: finalized`, that it names a finalized slot (payments
 * complete there).
 */
export async function solanaPreflight(config: SolanaNetworkConfig, settings: RailPreflightSettings): Promise<PreflightCheck[]> {
  const rpc = new SolanaRpc(config.rpcUrl, settings.timeoutMs);
  let genesis: string;
  try {
    genesis = await rpc.call<string>('getGenesisHash');
  } catch (e) {
    return [nodeUnreachableCheck(config, e)];
  }
  const checks: PreflightCheck[] = [nodeAnswersCheck(config, 'getGenesisHash'), chainCheck(config, genesis)];
  const health = checkName(config, 'health');
  try {
    const answer = await rpc.call<string>('getHealth');
    checks.push({ name: health, status: answer === 'ok' ? 'ok' : 'fail', detail: `getHealth answers ${JSON.stringify(answer)}` });
  } catch (e) {
    checks.push({ name: health, status: 'fail', detail: `the node says it is not healthy (${safeErrorText(e)}): it is behind the cluster or not serving` });
  }
  const sync = checkName(config, 'sync');
  try {
    const slot = await rpc.call<number>('getSlot', [{ commitment: 'confirmed' }]);
    const time = await rpc.call<number | null>('getBlockTime', [slot]);
    if (time === null) checks.push({ name: sync, status: 'warn', detail: `the node has no time for its confirmed slot ${slot}` });
    else {
      const age = Math.round(settings.now.getTime() / 1000 - time);
      checks.push(
        age > MAX_SLOT_AGE_SECONDS
          ? { name: sync, status: 'fail', detail: `the node's confirmed slot ${slot} is ${age} s old: it is not synced (payments would be seen late)` }
          : { name: sync, status: 'ok', detail: `confirmed slot ${slot}, ${Math.max(age, 0)} s old` },
      );
    }
  } catch (e) {
    checks.push({ ...nodeUnreachableCheck(config, e), name: sync });
  }
  if (config.commitment === 'finalized') {
    const name = checkName(config, 'finalized');
    try {
      const slot = await rpc.call<number>('getSlot', [{ commitment: 'finalized' }]);
      checks.push({ name, status: 'ok', detail: `the node names its finalized slot (${slot})` });
    } catch (e) {
      checks.push({ name, status: 'fail', detail: `the node refuses the finalized commitment (${safeErrorText(e)}): payments would never complete` });
    }
  }
  return checks;
}
