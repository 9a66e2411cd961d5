/**
 * @module The CLI's side of the daemon's proof (src/shared/daemon-proof.ts, docs/security.md): `GET /health`
 * with a fresh nonce, the answer checked against the data directory's `daemon.secret`, and the error for
 * a listener that cannot prove it — which is then sent no credential.
 */
import {closeSync, openSync, readFileSync, readSync} from 'node:fs'
import {KbError} from '../../shared/errors.js'
import {CHALLENGE_HEADER, proofMessage} from '../../shared/daemon-proof.js'
import {dataFiles} from '../../shared/paths.js'
import type {Health} from '../../shared/types.js'
import {httpTransport, type HttpTransportOptions} from '../client/http-transport.js'
import {hmacSha256Hex} from './hmac-sha256.js'

/** What `/health` answered, and whether the answer proves the daemon owns the data directory. */
export interface DaemonProbe {
  /** null when what answered is not kb (an error status, not kb's health). */
  health: Health | null
  proven: boolean
  /** The server's end of the connection that answered: later requests are pinned to its address. */
  peer: {address: string; port: number} | null
}

function secretOf(dir: string): Buffer | null {
  try {
    const hex = readFileSync(dataFiles(dir).secret, 'utf8').trim()
    return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : null
  } catch {
    return null
  }
}

/** 128 random bits in hex, from the kernel; node:crypto only where there is no /dev/urandom (its start-up cost). */
async function nonce(): Promise<string> {
  const bytes = Buffer.alloc(16)
  try {
    const fd = openSync('/dev/urandom', 'r')
    try {
      if (readSync(fd, bytes) === 16) return bytes.toString('hex')
    } finally {
      closeSync(fd)
    }
  } catch {
    // Windows
  }
  return (await import('node:crypto')).randomBytes(16).toString('hex')
}

/** Whether `proof` is the HMAC of the challenge and the endpoint the CLI reached, compared in constant time. */
function proofMatches(secret: Buffer, challenge: string, peer: {address: string; port: number}, proof: unknown): boolean {
  if (typeof proof !== 'string' || proof.length !== 64) return false
  const want = hmacSha256Hex(secret, proofMessage(challenge, peer.address, peer.port))
  let diff = 0
  for (let i = 0; i < 64; i++) diff |= want.charCodeAt(i) ^ proof.charCodeAt(i)
  return diff === 0
}

/**
 * `/health` of a base URL with a challenge, checked against the secret of data directory `dir`. Nothing
 * answering is `KbError('unreachable')` worded by `transport`.
 */
export async function probeDaemon(
  baseUrl: string,
  dir: string,
  timeoutMs = 2000,
  transport: HttpTransportOptions = {},
): Promise<DaemonProbe> {
  const challenge = await nonce()
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/health`)
  const res = await httpTransport(transport).send({
    method: 'GET',
    url,
    headers: {accept: 'application/json', [CHALLENGE_HEADER]: challenge},
    body: undefined,
    timeoutMs,
  })
  let h: (Health & {proof?: unknown}) | null = null
  try {
    h = res.status === 200 ? (JSON.parse(res.text) as Health & {proof?: unknown}) : null
  } catch {
    // not kb
  }
  const secret = secretOf(dir)
  const peer = res.peer ?? null
  if (typeof h?.version !== 'string') return {health: null, proven: false, peer}
  const proven = secret !== null && peer !== null && proofMatches(secret, challenge, peer, h.proof)
  // data_dir is unproven: used only to word a fix (a daemon started with another --data-dir).
  const dataDirSaid = typeof h.data_dir === 'string' ? {data_dir: h.data_dir} : {}
  return {health: {status: 'ok', version: h.version, ...dataDirSaid}, proven, peer}
}

/** `probeDaemon`, or null when nothing answers. */
export async function probeDaemonIfUp(baseUrl: string, dir: string, timeoutMs = 2000): Promise<DaemonProbe | null> {
  try {
    return await probeDaemon(baseUrl, dir, timeoutMs)
  } catch (e) {
    if (e instanceof KbError && e.code === 'unreachable') return null
    throw e
  }
}

/** The refusal when a loopback listener cannot prove it is the daemon of `dir` (exit 5, a port conflict). */
export async function impostorError(baseUrl: string, dir: string, probe: DaemonProbe | null): Promise<KbError> {
  const u = new URL(baseUrl)
  const port = Number(u.port || 80)
  const {portHolder} = await import('./port-holder.js')
  const holder = portHolder(port, probe?.peer?.address)
  const who = holder ? ` (it belongs to ${holder})` : ''
  const said = probe?.health?.data_dir
  const other =
    said && said !== dir
      ? `. It says it is the kb daemon of ${said} (\`kb daemon run --data-dir\`): if so, set KB_DATA_DIR=${said} to use its owner.key`
      : ''
  return new KbError(
    'conflict',
    `port ${port} on ${u.hostname} is held by a program that is not the kb daemon of ${dir}${who}: it could not prove it owns that data directory, so no credential was sent. ` +
      `Stop that program, or run kb on another port (\`kb config set base_url http://127.0.0.1:<port>/api/v1\`)${other}`,
  )
}

/** Where a browser may connect for a loopback host: a literal is itself; `localhost` is both loopbacks and what the system maps it to. */
async function addressesOf(hostname: string): Promise<string[]> {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
  if (host.toLowerCase() !== 'localhost') return [host]
  const {lookup} = await import('node:dns/promises')
  const found = await lookup('localhost', {all: true}).catch(() => [])
  return [...new Set(['127.0.0.1', '::1', ...found.map((a) => a.address)])]
}

/**
 * Refuses (exit 5) unless every address the base URL's host names is closed or the daemon of `dir`: what
 * the browser reaches, which kb cannot pin, is then the daemon that proved itself at `proven`.
 */
export async function requireEveryAddress(baseUrl: string, dir: string, proven: string): Promise<void> {
  for (const address of await addressesOf(new URL(baseUrl).hostname)) {
    if (address === proven) continue
    let probe: DaemonProbe
    try {
      probe = await probeDaemon(baseUrl, dir, 2000, {address})
    } catch (e) {
      if (e instanceof KbError && e.code === 'unreachable') continue
      throw e
    }
    if (!probe.proven) throw await impostorError(baseUrl, dir, probe)
  }
}
