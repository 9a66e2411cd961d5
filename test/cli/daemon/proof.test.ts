/**
 * The CLI's HMAC-SHA256 (src/cli/daemon/hmac-sha256.ts, kept off node:crypto for start-up) agrees with
 * node:crypto — RFC 4231 vectors, every length around the block and padding edges, long keys — and the
 * daemon's proof message binds the connection's endpoint.
 */
import {createHash, createHmac, randomBytes} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {hmacSha256Hex, sha256} from '../../../src/cli/daemon/hmac-sha256.js'
import {proofMessage} from '../../../src/shared/daemon-proof.js'

describe('hmac-sha256', () => {
  it('matches RFC 4231 test case 2', () => {
    expect(hmacSha256Hex(Buffer.from('Jefe'), 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    )
  })

  it('matches node:crypto for every message length 0–300 and keys of 0–200 bytes', () => {
    for (let n = 0; n <= 300; n++) {
      const data = randomBytes(n)
      expect(Buffer.from(sha256(data)).toString('hex')).toBe(createHash('sha256').update(data).digest('hex'))
    }
    for (const keyLen of [0, 1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(keyLen)
      const message = `kb ${randomBytes(40).toString('hex')} é ✓`
      expect(hmacSha256Hex(key, message)).toBe(createHmac('sha256', key).update(message).digest('hex'))
    }
  })

  it('the proof message names the endpoint, an IPv4-mapped address as IPv4', () => {
    expect(proofMessage('ab', '::ffff:127.0.0.1', 7411)).toBe(proofMessage('ab', '127.0.0.1', 7411))
    expect(proofMessage('ab', '127.0.0.1', 7411)).not.toBe(proofMessage('ab', '127.0.0.1', 7412))
    expect(proofMessage('ab', '::1', 7411)).not.toBe(proofMessage('ab', '127.0.0.1', 7411))
  })
})
