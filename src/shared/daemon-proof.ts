/**
 * @module How a local daemon proves it owns its data directory before the CLI sends it a credential
 * (docs/security.md): at start the daemon writes a random secret to `daemon.secret` (0600, in the 0700
 * data directory); the CLI sends a fresh nonce in the `Kb-Challenge` header of `GET /health` and checks
 * `proof` = HMAC-SHA256(secret, `proofMessage`). The message names the TCP endpoint of that very
 * connection, so a listener on another address or port cannot relay the challenge to the real daemon.
 * No hashing here: the daemon uses node:crypto, the CLI a start-up-cheap one (src/cli/daemon/hmac-sha256.ts).
 */

/** The request header carrying the nonce (lower case, as node gives headers). */
export const CHALLENGE_HEADER = 'kb-challenge'
/** A nonce: 128 to 512 bits in hex. */
export const CHALLENGE_PATTERN = /^[0-9a-f]{32,128}$/

/** The address as both ends of one loopback connection name it (an IPv4-mapped IPv6 address as IPv4). */
function plainAddress(address: string): string {
  const a = address.toLowerCase()
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a
}

/** What the proof is the HMAC of: the nonce and the daemon's end (address, port) of the connection. */
export function proofMessage(challenge: string, address: string, port: number): string {
  return `kb-daemon-proof:1\n${challenge}\n${plainAddress(address)}\n${port}`
}
