import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';

/**
 * A chain node's answer as JSON, with whole numbers past 2^53 kept exact as bigints: Solana's lamport
 * balances are u64 and Tron's HTTP API gives TRX amounts in sun as plain numbers, so a balance or a
 * transfer above 2^53 read through a JavaScript number would be judged a unit or more off. Answers without
 * such a number (nearly all) take the plain parser.
 */
export function parseExact(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  return parseLossless(text, null, (value) => (isSafeNumber(value) || !isInteger(value) ? Number(value) : BigInt(value)));
}
