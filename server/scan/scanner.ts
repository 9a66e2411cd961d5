/**
 * @module The sensitive-content scanner (docs/security.md, "Safe publish"): finds secrets and personal data
 * in one text. Pure and synchronous; linear in the text's length whatever it holds (every detector reads a
 * bounded stretch around literal anchors, and overlaps are settled on a bitmap), so the daemon may run it
 * on anything a client sends.
 */
import {
  connectionStringPasswords,
  genericAssignments,
  privateKeys,
  scanContext,
  tokens,
  urlCredentials,
  type Match,
  type ScanContext,
} from './detectors.js'
import {normalizeForScan} from './normalize.js'
import {emails, ipAddresses, phones} from './personal.js'

export type {Match} from './detectors.js'

export type Category = 'secret' | 'personal'

/** Every kind of finding, with what a person reads for it. */
export const KINDS: Record<string, {label: string; category: Category}> = {
  'private-key': {label: 'private key', category: 'secret'},
  'aws-access-token': {label: 'AWS access key', category: 'secret'},
  'gcp-api-key': {label: 'Google Cloud API key', category: 'secret'},
  'azure-ad-client-secret': {label: 'Azure AD client secret', category: 'secret'},
  'azure-storage-account-key': {label: 'Azure Storage account key', category: 'secret'},
  'authorization-header': {label: 'credential in an Authorization header', category: 'secret'},
  'bearer-token': {label: 'bearer token', category: 'secret'},
  'github-pat': {label: 'GitHub personal access token', category: 'secret'},
  'github-fine-grained-pat': {label: 'GitHub fine-grained access token', category: 'secret'},
  'github-oauth': {label: 'GitHub OAuth token', category: 'secret'},
  'github-app-token': {label: 'GitHub App token', category: 'secret'},
  'github-refresh-token': {label: 'GitHub refresh token', category: 'secret'},
  'gitlab-pat': {label: 'GitLab personal access token', category: 'secret'},
  'gitlab-deploy-token': {label: 'GitLab deploy token', category: 'secret'},
  'gitlab-runner-authentication-token': {label: 'GitLab runner token', category: 'secret'},
  'gitlab-cicd-job-token': {label: 'GitLab CI/CD job token', category: 'secret'},
  'slack-bot-token': {label: 'Slack bot token', category: 'secret'},
  'slack-user-token': {label: 'Slack user token', category: 'secret'},
  'slack-app-token': {label: 'Slack app token', category: 'secret'},
  'slack-legacy-workspace-token': {label: 'Slack legacy token', category: 'secret'},
  'slack-webhook-url': {label: 'Slack webhook URL', category: 'secret'},
  'stripe-access-token': {label: 'Stripe API key', category: 'secret'},
  'npm-access-token': {label: 'npm access token', category: 'secret'},
  'pypi-upload-token': {label: 'PyPI upload token', category: 'secret'},
  jwt: {label: 'JSON Web Token', category: 'secret'},
  'openai-api-key': {label: 'OpenAI API key', category: 'secret'},
  'anthropic-api-key': {label: 'Anthropic API key', category: 'secret'},
  'sendgrid-api-token': {label: 'SendGrid API key', category: 'secret'},
  'twilio-api-key': {label: 'Twilio API key', category: 'secret'},
  'digitalocean-token': {label: 'DigitalOcean token', category: 'secret'},
  'shopify-token': {label: 'Shopify token', category: 'secret'},
  'vault-service-token': {label: 'HashiCorp Vault token', category: 'secret'},
  'huggingface-access-token': {label: 'Hugging Face token', category: 'secret'},
  'kb-api-key': {label: 'kb API key or token', category: 'secret'},
  'url-credentials': {label: 'password in a URL', category: 'secret'},
  'connection-string': {label: 'database password in a connection string', category: 'secret'},
  'generic-api-key': {label: 'high-entropy value assigned to a secret-sounding name', category: 'secret'},
  email: {label: 'email address', category: 'personal'},
  phone: {label: 'phone number', category: 'personal'},
  'ip-address': {label: 'IP address', category: 'personal'},
}

/** The kinds by index, as the scan worker sends them (off-thread.ts). */
export const KIND_NAMES: readonly string[] = Object.keys(KINDS)

/**
 * The detectors, most specific first: where two findings overlap, the earlier detector's stands (a GitHub
 * token assigned to `TOKEN=` is a github-pat, not a generic-api-key; a password in a URL is not an email).
 */
const DETECTORS: Array<(ctx: ScanContext, out: Match[]) => void> = [
  privateKeys,
  tokens,
  urlCredentials,
  connectionStringPasswords,
  genericAssignments,
  emails,
  phones,
  ipAddresses,
]

/** Every secret and piece of personal data in the text, in text order, none overlapping another. */
export function scanText(text: string): Match[] {
  if (text.length === 0) return []
  const claimed = new Uint8Array(text.length)
  const kept: Match[] = []
  const claim = (m: Match): void => {
    let free = m.end > m.start
    for (let i = m.start; free && i < m.end; i++) if (claimed[i]) free = false
    if (!free) return
    claimed.fill(1, m.start, m.end)
    kept.push(m)
  }
  for (const m of detect(text)) claim(m)
  // Then the text as a reader sees it (normalize.ts): what only it shows, mapped back onto the original.
  const seen = normalizeForScan(text)
  if (seen) {
    for (const m of detect(seen.text)) claim({kind: m.kind, start: seen.from[m.start]!, end: seen.to[m.end - 1]!})
  }
  return kept.sort((a, b) => a.start - b.start)
}

/** Every detector over one text, most specific first, overlaps settled (the earlier detector's finding stands). */
function detect(text: string): Match[] {
  const ctx = scanContext(text)
  const claimed = new Uint8Array(text.length)
  const kept: Match[] = []
  for (const run of DETECTORS) {
    const found: Match[] = []
    run(ctx, found)
    for (const m of found) {
      let free = m.end > m.start
      for (let i = m.start; free && i < m.end; i++) if (claimed[i]) free = false
      if (!free) continue
      claimed.fill(1, m.start, m.end)
      kept.push(m)
    }
  }
  return kept
}
