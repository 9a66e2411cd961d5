/**
 * @module The personal-data detectors (docs/security.md, "Safe publish"): email addresses, phone numbers
 * and IP addresses. gitleaks has no such rules; these are written for kb's text (notes, logs, stack traces)
 * and tuned against its false-positive corpora: documentation addresses (RFC 2606 domains, RFC 5737 and
 * RFC 3849 ranges), loopback, `git@host` remotes and version numbers are not personal. Each reads a bounded
 * stretch around an anchor (an `@`, a `+`, a digit run) and skips past what it matched: linear in the text.
 */
import {asciiLower, codeAt, isAlnum, isAlpha, isDigit, isHex, isWord, runEnd, runStart} from './chars.js'
import type {Match, ScanContext} from './detectors.js'

// ---- email ----

const isLocalChar = (c: number): boolean => isAlnum(c) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45
const isDomainChar = (c: number): boolean => isAlnum(c) || c === 46 || c === 45
/** Domains that name no one (RFC 2606, RFC 6761) and GitHub's no-reply addresses. */
const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org', 'users.noreply.github.com']
const RESERVED_TLDS = new Set(['example', 'test', 'invalid', 'localhost', 'local', 'internal'])
/** Image and source file extensions: `logo@2x.png` and `pkg@1.2.js` are file names, not addresses. */
const FILE_TLDS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'ico',
  'css',
  'js',
  'mjs',
  'cjs',
  'ts',
  'tsx',
  'jsx',
  'json',
  'md',
  'txt',
  'yml',
  'yaml',
  'lock',
  'html',
])
const ROLE_LOCALS = new Set(['git', 'noreply', 'no-reply', 'donotreply', 'do-not-reply'])

function personalDomain(domain: string): boolean {
  const d = asciiLower(domain)
  const labels = d.split('.')
  if (labels.length < 2 || labels.some((l) => l === '' || l.length > 63 || l.startsWith('-') || l.endsWith('-'))) return false
  const tld = labels.at(-1)!
  if (tld.length < 2 || tld.length > 24 || ![...tld].every((ch) => isAlpha(ch.charCodeAt(0)))) return false
  if (RESERVED_TLDS.has(tld) || FILE_TLDS.has(tld)) return false
  return !RESERVED_DOMAINS.some((r) => d === r || d.endsWith(`.${r}`))
}

/** After `://`, or `user:pass@` after it: the user part of a URL, not a mailbox (url-credentials covers passwords). */
function inUrlAuthority(text: string, localStart: number): boolean {
  const before = codeAt(text, localStart - 1)
  if (before === 47) return true
  if (before !== 58) return false
  const userStart = runStart(text, localStart - 1, isLocalChar, 64)
  return text.startsWith('//', userStart - 2)
}

export function emails(ctx: ScanContext, out: Match[]): void {
  const {text} = ctx
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = runStart(text, at, isLocalChar, 65)
    if (at - start > 64) continue
    while (start < at && text.charCodeAt(start) === 46) start++
    if (start === at || text.charCodeAt(at - 1) === 46) continue
    let end = runEnd(text, at + 1, isDomainChar, 254)
    if (end - at > 253) continue
    while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--
    const local = text.slice(start, at)
    if (ROLE_LOCALS.has(asciiLower(local)) || local.includes('..') || inUrlAuthority(text, start)) continue
    if (!personalDomain(text.slice(at + 1, end))) continue
    out.push({kind: 'email', start, end})
  }
}

// ---- phone numbers ----

const isPhoneSeparator = (c: number): boolean => c === 32 || c === 45 || c === 46 || c === 40 || c === 41
/** A character that, just before a number, makes it part of something else: a version, a range, a path, a date. */
const joinsNumber = (c: number): boolean => isAlnum(c) || c === 46 || c === 45 || c === 47 || c === 43 || c === 58 || c === 44 || c === 95
const NANP = /\(\d{3}\) ?\d{3}-\d{4}|\d{3}-\d{3}-\d{4}|\d{3}\.\d{3}\.\d{4}/y

/** `+<country> <number>` (E.164: 8–15 digits, separated by spaces, dashes, dots or brackets, at most two in a row). */
function internationalPhones(text: string, out: Match[]): void {
  for (let at = text.indexOf('+'); at !== -1; at = text.indexOf('+', at + 1)) {
    if (isWord(codeAt(text, at - 1)) || !isDigit(codeAt(text, at + 1)) || text.charCodeAt(at + 1) === 48) continue
    let digits = 0
    let end = at + 1
    let separators = 0
    let j = at + 1
    for (; j < text.length && j - at <= 24; j++) {
      const c = text.charCodeAt(j)
      if (isDigit(c)) {
        digits++
        separators = 0
        end = j + 1
      } else if (!isPhoneSeparator(c) || ++separators > 2) {
        break
      }
    }
    // Cut off mid-number by the length bound, or followed by a letter: a longer token, not a phone number.
    if (j - at > 24 || digits < 8 || digits > 15 || isAlnum(codeAt(text, end))) continue
    const number = text.slice(at + 1, end).replace(/\D/g, '')
    if (!(number.length === 11 && number.startsWith('1') && fictional(number.slice(1)))) out.push({kind: 'phone', start: at, end})
    at = end - 1
  }
}

/** 555-0100 to 555-0199: the North American numbers reserved for fiction and examples. */
function fictional(number: string): boolean {
  const digits = number.replace(/\D/g, '')
  return digits.slice(3, 6) === '555' && digits.slice(6, 8) === '01'
}

/** North American forms written without a country code: (415) 555-0132, 415-555-0132, 415.555.0132. */
function localPhones(text: string, out: Match[]): void {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (!(isDigit(c) || c === 40) || joinsNumber(codeAt(text, i - 1))) continue
    NANP.lastIndex = i
    const m = NANP.exec(text)
    if (!m) {
      // Skip the rest of this digit run: only its first digit can start a number.
      if (isDigit(c)) i = runEnd(text, i, isDigit, text.length) - 1
      continue
    }
    const end = i + m[0].length
    const after = codeAt(text, end)
    if (isAlnum(after) || ((after === 46 || after === 45) && isDigit(codeAt(text, end + 1)))) continue
    if (!fictional(m[0])) out.push({kind: 'phone', start: i, end})
    i = end - 1
  }
}

export function phones(ctx: ScanContext, out: Match[]): void {
  internationalPhones(ctx.text, out)
  localPhones(ctx.text, out)
}

// ---- IP addresses ----

const IPV4 = /(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}/y

/** Loopback, unspecified, broadcast, link-local and the documentation ranges of RFC 5737. */
function publicIpv4(ip: string): boolean {
  const [a, b, c] = ip.split('.').map(Number) as [number, number, number, number]
  if (a === 127 || a === 0 || ip === '255.255.255.255' || (a === 169 && b === 254)) return false
  return !((a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113))
}

function ipv4s(text: string, out: Match[]): void {
  for (let i = 0; i < text.length; i++) {
    if (!isDigit(text.charCodeAt(i))) continue
    const runStop = runEnd(text, i, isDigit, text.length)
    const before = codeAt(text, i - 1)
    if (isWord(before) || before === 46 || before === 45) {
      i = runStop - 1
      continue
    }
    IPV4.lastIndex = i
    const m = IPV4.exec(text)
    if (m) {
      const end = i + m[0].length
      const after = codeAt(text, end)
      const more = (after === 46 || after === 45) && isDigit(codeAt(text, end + 1))
      if (!isWord(after) && !more) {
        if (publicIpv4(m[0])) out.push({kind: 'ip-address', start: i, end})
        i = end - 1
        continue
      }
    }
    i = runStop - 1
  }
}

const isV6Char = (c: number): boolean => isHex(c) || c === 58

/** A valid IPv6 address of at least three groups that is not loopback, link-local or documentation (2001:db8::/32). */
function publicIpv6(s: string): boolean {
  // Without a colon it is one group; checked first, as most runs of hex digits (ids, hashes) are such.
  if (!s.includes(':')) return false
  const halves = s.split('::')
  if (halves.length > 2) return false
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')))
  if (groups.some((g) => g.length === 0 || g.length > 4)) return false
  if (halves.length === 1 ? groups.length !== 8 : groups.length > 7 || groups.length < 3) return false
  const first = asciiLower(groups[0] ?? '')
  if (halves[0] === '') return false
  const linkLocal = ['fe8', 'fe9', 'fea', 'feb'].some((p) => first.startsWith(p))
  return !(linkLocal || (first === '2001' && asciiLower(groups[1] ?? '') === 'db8'))
}

function ipv6s(text: string, out: Match[]): void {
  for (let i = 0; i < text.length; i++) {
    if (!isV6Char(text.charCodeAt(i))) continue
    const end = runEnd(text, i, isV6Char, text.length)
    const before = codeAt(text, i - 1)
    const after = codeAt(text, end)
    const alone = !isWord(before) && before !== 58 && before !== 46 && !isWord(after) && after !== 46
    if (end - i >= 6 && end - i <= 39 && alone && publicIpv6(text.slice(i, end))) {
      out.push({kind: 'ip-address', start: i, end})
    }
    i = end - 1
  }
}

export function ipAddresses(ctx: ScanContext, out: Match[]): void {
  ipv4s(ctx.text, out)
  ipv6s(ctx.text, out)
}
