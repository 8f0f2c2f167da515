import type { PreflightCheck, PreflightStatus } from '../../../shared/preflight/preflight-check';
import type { NetworkConfig } from './chains-config';

/**
 * The go-live checks every chain family shares (`cli doctor`): names, a node that does not answer, a node on
 * another chain, and the two confirmations settings. The family's own checks (sync, indexes) come from its
 * adapter (RailAdapter.preflight).
 */
type Network = Pick<NetworkConfig, 'mode' | 'network'>;

/** `chain.live.bitcoin.txindex`: one name per network, mode and thing checked. */
export function checkName(config: Network, what: string): string {
  return `chain.${config.mode}.${config.network}.${what}`;
}

/** `live.bitcoin`: the CHAINS_FILE section, as messages name it. */
export function sectionOf(config: Network): string {
  return `${config.mode}.${config.network}`;
}

/**
 * A node's error as a check may show it: its first line, with any URL replaced (an rpc_url carries
 * credentials or an API key, and client libraries quote it in their errors).
 */
export function safeErrorText(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).split('\n')[0].trim();
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<rpc_url>').slice(0, 200) || 'no answer';
}

/** The node did not answer (or answered nonsense): nothing else of it can be checked. */
export function nodeUnreachableCheck(config: Network, error: unknown): PreflightCheck {
  return {
    name: checkName(config, 'node'),
    status: 'fail',
    detail: `the ${config.mode} ${config.network} node did not answer (${safeErrorText(error)}): check CHAINS_FILE ${sectionOf(config)}.rpc_url, the node and the network between them`,
  };
}

export function nodeAnswersCheck(config: Network, what: string): PreflightCheck {
  return { name: checkName(config, 'node'), status: 'ok', detail: `the ${config.mode} ${config.network} node answers (${what})` };
}

/** The node serves the chain CHAINS_FILE names, or the check fails naming both. */
export function chainCheck(config: Pick<NetworkConfig, 'mode' | 'network' | 'chain' | 'chainField'>, actual: string): PreflightCheck {
  const field = `CHAINS_FILE ${sectionOf(config)}.${config.chainField}`;
  if (actual === config.chain) {
    return { name: checkName(config, 'chain'), status: 'ok', detail: `the node serves chain ${actual}, as ${field} says`, chain: actual };
  }
  return {
    name: checkName(config, 'chain'),
    status: 'fail',
    detail: `the node serves chain ${actual}, but ${field} says ${config.chain}: the network is not watched and hands out no address until they agree; point rpc_url at a node of chain ${config.chain} or correct ${config.chainField}`,
    chain: actual,
    expected_chain: config.chain,
  };
}

/** Fewer blocks than this of finality depth on a live network is very few, whatever the provider requires. */
export const MIN_LIVE_FINALITY_DEPTH = 6;

/**
 * The two "confirmations" settings of a network (docs/going-live.md section 5): CHAINS_FILE's
 * `confirmations` is the watcher's finality depth (how deep it follows reorgs); the provider's required
 * confirmations decide when a payment counts. A depth below the requirement, or very low on a live
 * network, lets a completed payment be taken back by a reorg the watcher no longer sees: a warning.
 */
export function confirmationsCheck(config: Pick<NetworkConfig, 'mode' | 'network' | 'finalityDepth'>, required: number | null): PreflightCheck {
  const depth = config.finalityDepth;
  const field = `CHAINS_FILE ${sectionOf(config)}.confirmations`;
  const both =
    required === null
      ? ''
      : ` Payments complete at the provider's required confirmations (${required} by default; provider:confirmations changes it per organization), which the file does not change.`;
  const facts = { finality_depth: depth, required_confirmations: required };
  let status: PreflightStatus = 'ok';
  let detail = `${field} (the watcher's finality depth: how many recent blocks it checks for reorgs) is ${depth}.${both}`;
  if (required !== null && depth < required) {
    status = 'warn';
    detail = `${field} is ${depth}, below the ${required} confirmations a payment needs by default: a reorg deeper than ${depth} blocks would go unnoticed after a payment completed. Keep it at or above the highest required confirmations any organization uses (docs/going-live.md section 5).`;
  } else if (config.mode === 'live' && depth < MIN_LIVE_FINALITY_DEPTH) {
    status = 'warn';
    detail = `${field} is ${depth} on a live network: very few blocks are followed for reorgs; leave it at the network's default unless you have a reason (docs/going-live.md section 5).${both}`;
  }
  return { name: checkName(config, 'confirmations'), status, detail, ...facts };
}

/** Live mode with no network: production refuses to start that way unless ALLOW_NO_LIVE_RAILS says so. */
export function liveNetworksCheck(liveNetworks: readonly string[], production: boolean): PreflightCheck {
  if (liveNetworks.length) return { name: 'chains.live', status: 'ok', detail: `CHAINS_FILE's live section names ${liveNetworks.join(', ')}` };
  return {
    name: 'chains.live',
    status: production ? 'fail' : 'warn',
    detail: 'CHAINS_FILE names no live network: live mode can take no crypto payment; add a live section (docs/going-live.md section 3)',
  };
}
