/**
 * A corpus of fake secrets and personal data in their real formats, one or more per finding kind, each in
 * the kind of line it is found in (a config file, a log, a shell history). Generated from a seeded
 * generator on every run: nothing here is, or was ever, a real credential or a real person's address.
 */

export interface FakeSample {
  kind: string
  /** The line as written in an entry. */
  text: string
  /** The part of it that must be found (and redacted). */
  secret: string
}

/** A small seeded generator (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LOWER = 'abcdefghijklmnopqrstuvwxyz'
const DIGITS = '0123456789'
const ALNUM = UPPER + LOWER + DIGITS
const HEX = '0123456789abcdef'
const B64 = ALNUM + '+/'
const B64URL = ALNUM + '-_'

export function fakeCorpus(seed = 15): FakeSample[] {
  const next = rng(seed)
  const pick = (chars: string, n: number): string => {
    let s = ''
    for (let i = 0; i < n; i++) s += chars[Math.floor(next() * chars.length)]
    // Real secrets of these lengths always mix characters; make sure a digit is there too.
    return n >= 8 && chars.includes('0') && !/\d/.test(s) ? `${s.slice(0, -1)}7` : s
  }
  const b64url = (s: string): string => Buffer.from(s).toString('base64url')
  const pemBody = (): string => Array.from({length: 8}, () => pick(B64, 64)).join('\n')
  const payload = `{"sub":"${pick(DIGITS, 10)}","name":"${pick(LOWER, 8)}","iat":${pick(DIGITS, 10)}}`
  const jwt = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(payload)}.${pick(B64URL, 43)}`
  const basic = Buffer.from(`deploy:${pick(ALNUM, 14)}`).toString('base64')
  const samples: Array<[string, string, string]> = [
    ['private-key', '', `-----BEGIN RSA PRIVATE KEY-----\n${pemBody()}\n-----END RSA PRIVATE KEY-----`],
    ['private-key', '', `-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody()}\n-----END OPENSSH PRIVATE KEY-----`],
    ['aws-access-token', 'aws_access_key_id = ', `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`],
    ['aws-access-token', 'export AWS_ACCESS_KEY_ID=', `ASIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`],
    ['gcp-api-key', 'const firebaseKey = "', `AIza${pick(ALNUM + '_-', 35)}`],
    ['azure-ad-client-secret', 'client_secret: ', `${pick(ALNUM, 3)}${pick(DIGITS, 1)}Q~${pick(ALNUM + '_~.-', 32)}`],
    ['azure-storage-account-key', 'DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=', `${pick(B64, 86)}==`],
    ['authorization-header', 'curl -H "Authorization: Basic ', basic],
    ['bearer-token', 'upstream answered 401 to bearer ', pick(B64URL, 40)],
    ['github-pat', 'git clone https://x:', `ghp_${pick(ALNUM, 36)}`],
    ['github-fine-grained-pat', 'GH_TOKEN=', `github_pat_${pick(ALNUM + '_', 82)}`],
    ['github-oauth', 'token ', `gho_${pick(ALNUM, 36)}`],
    ['github-app-token', 'installation token ', `ghs_${pick(ALNUM, 36)}`],
    ['github-refresh-token', 'refresh: ', `ghr_${pick(ALNUM, 36)}`],
    ['gitlab-pat', 'PRIVATE-TOKEN: ', `glpat-${pick(ALNUM + '_-', 20)}`],
    ['gitlab-deploy-token', 'deploy token ', `gldt-${pick(ALNUM, 20)}`],
    ['gitlab-runner-authentication-token', 'token = "', `glrt-${pick(ALNUM, 20)}`],
    ['gitlab-cicd-job-token', 'CI_JOB_TOKEN was ', `glcbt-${pick(ALNUM, 2)}_${pick(ALNUM, 20)}`],
    ['slack-bot-token', 'SLACK_BOT_TOKEN=', `xoxb-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${pick(ALNUM, 24)}`],
    ['slack-user-token', 'user token ', `xoxp-${pick(DIGITS, 12)}-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${pick(HEX, 32)}`],
    ['slack-app-token', 'app-level token ', `xapp-1-A${pick(DIGITS, 10)}-${pick(DIGITS, 13)}-${pick(HEX, 64)}`],
    ['slack-legacy-workspace-token', 'legacy ', `xoxa-2-${pick(ALNUM, 32)}`],
    [
      'slack-webhook-url',
      'curl -X POST https://',
      `hooks.slack.com/services/T${pick(UPPER + DIGITS, 8)}/B${pick(UPPER + DIGITS, 8)}/${pick(ALNUM, 24)}`,
    ],
    ['stripe-access-token', 'Stripe.api_key = ', `sk_live_${pick(ALNUM, 24)}`],
    ['npm-access-token', '//registry.npmjs.org/:_authToken=', `npm_${pick(LOWER + DIGITS, 36)}`],
    ['pypi-upload-token', 'password = ', `pypi-AgEIcHlwaS5vcmc${pick(ALNUM + '_-', 70)}`],
    ['jwt', 'session cookie ', jwt],
    ['openai-api-key', 'OPENAI_API_KEY=', `sk-proj-${pick(ALNUM, 74)}T3BlbkFJ${pick(ALNUM, 74)}`],
    ['anthropic-api-key', 'ANTHROPIC_API_KEY=', `sk-ant-api03-${pick(ALNUM + '_-', 93)}AA`],
    ['sendgrid-api-token', 'SENDGRID_API_KEY=', `SG.${pick(ALNUM, 22)}.${pick(ALNUM, 43)}`],
    ['twilio-api-key', 'twilio key ', `SK${pick(HEX, 32)}`],
    ['digitalocean-token', 'doctl auth init -t ', `dop_v1_${pick(HEX, 64)}`],
    ['shopify-token', 'X-Shopify-Access-Token: ', `shpat_${pick(HEX, 32)}`],
    ['vault-service-token', 'VAULT_TOKEN=', `hvs.${pick(ALNUM + '_-', 95)}`],
    ['huggingface-access-token', 'huggingface-cli login --token ', `hf_${pick(UPPER + LOWER, 34)}`],
    ['kb-api-key', 'KB_API_KEY=', `kb_${pick(ALNUM, 43)}`],
    ['kb-api-key', 'access token ', `kbat_${pick(ALNUM, 43)}`],
    ['url-credentials', 'git remote add origin https://deploy:', pick(ALNUM, 18)],
    ['connection-string', 'DATABASE_URL=postgres://app:', pick(ALNUM, 16)],
    ['connection-string', 'Server=tcp:acme-sql.database.windows.net,1433;User ID=app;Password=', `${pick(ALNUM, 12)}!`],
    ['generic-api-key', 'client_secret = "', pick(ALNUM, 32)],
    ['email', 'reported by ', `${pick(LOWER, 6)}.${pick(LOWER, 7)}@${pick(LOWER, 8)}-mail.io`],
    ['phone', 'call the on-call engineer at ', `+49 30 ${pick(DIGITS, 4)} ${pick(DIGITS, 4)}`],
    // Not 555-01xx: those numbers are reserved for fiction, and not found.
    ['phone', 'their office: ', `(${pick('23456789', 1)}${pick(DIGITS, 2)}) ${pick('2346789', 1)}${pick(DIGITS, 2)}-${pick(DIGITS, 4)}`],
    [
      'ip-address',
      'login from ',
      `${81 + Math.floor(next() * 100)}.${Math.floor(next() * 255)}.${Math.floor(next() * 255)}.${1 + Math.floor(next() * 250)}`,
    ],
    [
      'ip-address',
      'client ',
      `2a02:${pick(HEX, 4)}:${pick(HEX, 4)}:${pick(HEX, 4)}:${pick(HEX, 4)}:${pick(HEX, 4)}:${pick(HEX, 4)}:${pick(HEX, 4)}`,
    ],
  ]
  // What follows the secret in its line: a quote or `@host` where the format has one.
  const tail: Record<string, string> = {
    'gcp-api-key': '";',
    'authorization-header': '" https://api.acme-corp.io',
    'github-pat': '@github.com/acme/api.git',
    'gitlab-runner-authentication-token': '"',
    'url-credentials': '@git.acme-corp.io/acme/api.git',
    'generic-api-key': '"',
    'azure-storage-account-key': ';EndpointSuffix=core.windows.net',
  }
  return samples.map(([kind, lead, secret]) => {
    const connection = lead.startsWith('DATABASE_URL') ? '@db.acme-corp.io:5432/app' : ';Encrypt=True;'
    const end = kind === 'connection-string' ? connection : (tail[kind] ?? '')
    return {kind, text: `${lead}${secret}${end}`, secret}
  })
}
