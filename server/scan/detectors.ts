/**
 * @module The secret detectors (docs/security.md, "Safe publish"): the prefix rules of token-rules.ts,
 * and the shapes no prefix announces — private key blocks, credentials in URLs, connection-string
 * passwords, and high-entropy values assigned to words like `secret`, `token` or `password` (gitleaks'
 * generic-api-key). Each walks the text once from literal anchors found with indexOf, and reads a
 * bounded number of characters around each anchor: linear in the text, whatever it holds.
 */
import {asciiLower, codeAt, hasDigit, isAlpha, isAlnum, isPlaceholder, isSpace, isWord, runEnd, runStart, shannonEntropy} from './chars.js'
import {TOKEN_RULES, type TokenRule} from './token-rules.js'

/** One thing found: its kind and where it is (UTF-16 offsets, end exclusive). */
export interface Match {
  kind: string
  start: number
  end: number
}

export interface ScanContext {
  text: string
  /** The text with A–Z folded to a–z, index for index. */
  lower: string
}

export function scanContext(text: string): ScanContext {
  return {text, lower: asciiLower(text)}
}

const NONE: readonly number[] = Object.freeze([])

/** Every index of `needle` in `hay`, in order; an array, not a generator: most keywords occur nowhere in a short text. */
function occurrences(hay: string, needle: string): readonly number[] {
  let i = hay.indexOf(needle)
  if (i === -1) return NONE
  const at: number[] = []
  for (; i !== -1; i = hay.indexOf(needle, i + 1)) at.push(i)
  return at
}

function tokenRule(ctx: ScanContext, rule: TokenRule, out: Match[]): void {
  const {text} = ctx
  for (const keyword of rule.keywords) {
    // A match ends past its keyword: searching on from there never reads a character twice for one rule.
    let resume = 0
    for (const at of occurrences(rule.ci ? ctx.lower : text, keyword)) {
      const start = at - (rule.back ?? 0)
      if (start < resume || start < 0) continue
      if (rule.wordStart !== false && isWord(codeAt(text, start - 1))) continue
      rule.re.lastIndex = start
      const m = rule.re.exec(text)
      if (!m) continue
      const end = start + m[0].length
      if (rule.wordEnd && isWord(codeAt(text, end))) continue
      const span: readonly [number, number] | undefined = rule.group === undefined ? [start, end] : m.indices?.[rule.group]
      if (!span) continue
      const secret = text.slice(span[0], span[1])
      if (rule.entropy !== undefined && shannonEntropy(secret) < rule.entropy) continue
      if (rule.allow?.(secret)) continue
      out.push({kind: rule.kind, start: span[0], end: span[1]})
      resume = end
    }
  }
}

export function tokens(ctx: ScanContext, out: Match[]): void {
  for (const rule of TOKEN_RULES) tokenRule(ctx, rule, out)
}

// ---- private keys (privatekey.go, private-key) ----

const KEY_HEADER = /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/iy
const KEY_FOOTER = /-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/iy
/** Base64 and line breaks, also written as `\n` inside a JSON string (a GCP service-account file). */
const isKeyBody = (c: number): boolean => isAlnum(c) || c === 43 || c === 47 || c === 61 || isSpace(c) || c === 92
const KEY_BODY_MAX = 16_384

/** A PEM private key block, from BEGIN to END; without an END, the header and the base64 that follows it. */
export function privateKeys(ctx: ScanContext, out: Match[]): void {
  const {text, lower} = ctx
  let footerAt = -2 // the next "-----end" at or after the current position; -1 when there is none
  let resume = 0
  for (const start of occurrences(lower, '-----begin')) {
    if (start < resume) continue
    KEY_HEADER.lastIndex = start
    const header = KEY_HEADER.exec(text)
    if (!header) continue
    const bodyStart = start + header[0].length
    let end = runEnd(text, bodyStart, isKeyBody, KEY_BODY_MAX)
    if (footerAt !== -1 && footerAt < end) footerAt = lower.indexOf('-----end', end)
    // Encrypted keys carry headers (Proc-Type, DEK-Info) the body run stops at: the footer, if near, still closes the block.
    const footer = footerAt !== -1 && footerAt - bodyStart <= KEY_BODY_MAX ? footerAt : -1
    if (footer !== -1) {
      KEY_FOOTER.lastIndex = footer
      const f = KEY_FOOTER.exec(text)
      if (f) end = footer + f[0].length
    }
    while (end > bodyStart && isSpace(text.charCodeAt(end - 1))) end--
    out.push({kind: 'private-key', start, end})
    resume = end
  }
}

// ---- credentials in URLs and connection strings ----

const DATABASE_SCHEMES = new Set([
  'postgres',
  'postgresql',
  'mysql',
  'mariadb',
  'mongodb',
  'mongodb+srv',
  'redis',
  'rediss',
  'amqp',
  'amqps',
  'mssql',
  'sqlserver',
  'oracle',
  'clickhouse',
  'cockroachdb',
  'couchdb',
  'cassandra',
  'neo4j',
  'neo4j+s',
  'bolt',
  'memcached',
  'nats',
  'kafka',
  'ldap',
  'ldaps',
])
const isSchemeChar = (c: number): boolean => isAlnum(c) || c === 43 || c === 46 || c === 45
/** What may stand in a URL's authority before the host: anything but whitespace, / ? # and quotes. */
const isAuthorityChar = (c: number): boolean =>
  !isSpace(c) && c !== 47 && c !== 63 && c !== 35 && c !== 34 && c !== 39 && c !== 96 && c !== 60 && c !== 62
const PASSWORD_STAND_INS = new Set(['password', 'passwd', 'pass', 'pw', 'pwd', 'secret', 'token', 'x', 'xxx', 'user', 'username'])

function standIn(password: string): boolean {
  const first = password.charCodeAt(0)
  // $VAR, %s, {var}, <var>, [REDACTED…], :password@ and friends.
  const template = first === 36 || first === 37 || first === 123 || first === 60 || first === 91
  return template || PASSWORD_STAND_INS.has(asciiLower(password)) || isPlaceholder(password)
}

/** `scheme://user:password@host`: the password is the finding (a connection string when the scheme is a database's). */
export function urlCredentials(ctx: ScanContext, out: Match[]): void {
  const {text} = ctx
  for (const at of occurrences(text, '://')) {
    const schemeStart = runStart(text, at, isSchemeChar, 32)
    if (schemeStart === at || !isAlpha(text.charCodeAt(schemeStart))) continue
    const authorityEnd = runEnd(text, at + 3, isAuthorityChar, 512)
    const authority = text.slice(at + 3, authorityEnd)
    const atSign = authority.lastIndexOf('@')
    const colon = authority.indexOf(':')
    if (atSign <= 0 || colon === -1 || colon > atSign) continue
    const password = authority.slice(colon + 1, atSign)
    if (password === '' || standIn(password)) continue
    const scheme = asciiLower(text.slice(schemeStart, at))
    const start = at + 3 + colon + 1
    out.push({kind: DATABASE_SCHEMES.has(scheme) ? 'connection-string' : 'url-credentials', start, end: start + password.length})
  }
}

const isConnValue = (c: number): boolean => c !== 59 && c !== 34 && c !== 39 && !isSpace(c) && c !== 96
/** A connection string's separator: `Password=…` counts when a `;` precedes it on its line or ends its value. */
function inKeyValueList(text: string, keyStart: number, valueEnd: number): boolean {
  if (codeAt(text, valueEnd) === 59) return true
  const from = Math.max(0, keyStart - 256)
  for (let i = keyStart - 1; i >= from; i--) {
    const c = text.charCodeAt(i)
    if (c === 59) return true
    if (c === 10) return false
  }
  return false
}

/** `Password=…;` in an ADO.NET, ODBC or JDBC key–value connection string, whatever the password looks like. */
export function connectionStringPasswords(ctx: ScanContext, out: Match[]): void {
  const {text, lower} = ctx
  for (const keyword of ['password', 'pwd']) {
    for (const at of occurrences(lower, keyword)) {
      const before = codeAt(text, at - 1)
      if (before !== -1 && before !== 59 && !isSpace(before) && before !== 34 && before !== 39) continue
      let j = runEnd(text, at + keyword.length, (c) => c === 32 || c === 9, 3)
      if (codeAt(text, j) !== 61) continue
      j = runEnd(text, j + 1, (c) => c === 32 || c === 9, 3)
      const end = runEnd(text, j, isConnValue, 129)
      if (end === j || end - j > 128) continue
      if (!inKeyValueList(text, at, end) || standIn(text.slice(j, end))) continue
      out.push({kind: 'connection-string', start: j, end})
    }
  }
}

// ---- generic: a high-entropy value assigned to a secret-sounding name (generic.go, generic-api-key) ----

const GENERIC_KEYWORDS = ['access', 'auth', 'api', 'credential', 'creds', 'key', 'passwd', 'password', 'pwd', 'secret', 'token']
/**
 * Names that contain a keyword but hold no secret: gitleaks' generic-api-key allowlist, written with its
 * separators (_ . -) removed, as the name is compared.
 */
const GENERIC_NAME_ALLOW = [
  'accessibility',
  'accessor',
  'accessid',
  'randomaccess',
  'apiid',
  'apiname',
  'apiversion',
  'rapid',
  'capital',
  'author',
  'credentialsid',
  'credentialid',
  'withcredentials',
  'bucketkey',
  'foreignkey',
  'hotkey',
  'idxkey',
  'naturalkey',
  'primarykey',
  'publickey',
  'pubkey',
  'schemakey',
  'sequencekey',
  'turkey',
  'keyalias',
  'keyboard',
  'keycode',
  'keyframe',
  'keyid',
  'keylength',
  'keymesh',
  'keyname',
  'keypair',
  'keypress',
  'keyring',
  'keyselector',
  'keysignature',
  'keysize',
  'keystone',
  'keystoretype',
  'keyword',
  'keyup',
  'keydown',
  'keyleft',
  'keyright',
  'keyvaultid',
  'keyvaultname',
  'keystorefile',
  'keystorepath',
  'keytabfile',
  'keytabpath',
  'issuerkeyhash',
  'monkey',
  'donkey',
  'keying',
  'secretlength',
  'secretname',
  'secretsize',
  'usersecretsid',
  'csrftoken',
  'publictoken',
  'apiendpoint',
  'apiurl',
  'apiuri',
  'credentialsendpoint',
  'credentialsurl',
  'tokenendpoint',
  'tokenurl',
  'tokenuri',
  'keyfile',
  'tokenfile',
  'tokentype',
  'keytype',
  // Not gitleaks': an Idempotency-Key (docs/api.md, "Idempotency") is a request's name, not a credential.
  'idempotencykey',
]
const isIdent = (c: number): boolean => isWord(c) || c === 46 || c === 45
const isIdentOrBlank = (c: number): boolean => isIdent(c) || c === 32 || c === 9
// Name, operator and value on one line: `secrets:` ending a sentence is no assignment to the next line.
const isBlank = (c: number): boolean => c === 32 || c === 9
const isQuoteOrSpace = (c: number): boolean => isBlank(c) || c === 34 || c === 39
const isValueLead = (c: number): boolean => isBlank(c) || c === 34 || c === 39 || c === 96 || c === 61
const isValue = (c: number): boolean => isIdent(c) || c === 61 || c === 43 || c === 47 || c === 126
// gitleaks' assignment operators, longest first: = > :=, ::=, :::= || : => ?= ,
const OPERATORS = [':::=', '::=', ':=', '=>', '?=', '||', '=', '>', ':', ',']
/** What may follow the value: an end, a quote, a space, a separator, a closing bracket, an escaped line break. */
function valueEnds(text: string, i: number): boolean {
  const c = codeAt(text, i)
  if (c === -1 || isSpace(c)) return true
  if (c === 92) return codeAt(text, i + 1) === 110 || codeAt(text, i + 1) === 114
  return c === 34 || c === 39 || c === 96 || c === 59 || c === 44 || c === 41 || c === 125 || c === 93 || c === 38 || c === 60
}

function allowedName(name: string): boolean {
  let folded = ''
  for (const ch of asciiLower(name)) if (ch !== '_' && ch !== '.' && ch !== '-') folded += ch
  return GENERIC_NAME_ALLOW.some((w) => folded.includes(w))
}

export function genericAssignments(ctx: ScanContext, out: Match[]): void {
  const {text, lower} = ctx
  let resume = 0
  // The value run last measured: hits inside one run (`key=key=key=…`) share its end instead of reading it again.
  let run = {from: 0, to: 0}
  const hits: number[] = []
  for (const keyword of GENERIC_KEYWORDS) for (const at of occurrences(lower, keyword)) hits.push(at * 16 + keyword.length)
  // In text order, so a value found is not searched again from a keyword inside it.
  hits.sort((a, b) => a - b)
  for (const hit of hits) {
    const at = Math.floor(hit / 16)
    const keyEnd = at + (hit % 16)
    if (at < resume) continue
    const nameStart = runStart(text, at, isIdent, 50)
    const nameEnd = runEnd(text, keyEnd, isIdent, 20)
    let j = runEnd(text, keyEnd, isIdentOrBlank, 20)
    j = runEnd(text, j, isQuoteOrSpace, 3)
    const op = OPERATORS.find((o) => text.startsWith(o, j))
    // `https://…` after a name is a URL, not an assignment to it.
    if (!op || (op === ':' && text.startsWith('//', j + 1))) continue
    const valueStart = runEnd(text, j + op.length, isValueLead, 5)
    if (valueStart < run.from || valueStart >= run.to) run = {from: valueStart, to: runEnd(text, valueStart, isValue, text.length)}
    const valueEnd = run.to
    const length = valueEnd - valueStart
    if (length < 10 || length > 150 || !valueEnds(text, valueEnd)) continue
    const value = text.slice(valueStart, valueEnd)
    if (!hasDigit(value) || shannonEntropy(value) < 3.5 || isPlaceholder(value) || allowedName(text.slice(nameStart, nameEnd))) continue
    out.push({kind: 'generic-api-key', start: valueStart, end: valueEnd})
    resume = valueEnd
  }
}
