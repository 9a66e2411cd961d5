/**
 * @module Secrets that announce themselves by a prefix: cloud keys and service tokens. The patterns are
 * gitleaks' (https://github.com/gitleaks/gitleaks, MIT, cmd/generate/config/rules/<file>.go at commit
 * b58d3f1), each cited by file and rule id; kb's own keys are added. What is changed, and why: gitleaks
 * searches with Go's RE2, which is linear whatever the pattern; JavaScript's engine backtracks, so here a
 * rule is found by its literal keyword (indexOf) and only then matched, anchored (sticky), by a pattern
 * whose every quantifier is bounded and none nested (test/server/scan/linear.test.ts checks both), so
 * one attempt costs a bounded number of steps and a scan is linear in the text (docs/security.md).
 */

import {hasDigit, isPlaceholder} from './chars.js'

export interface TokenRule {
  /** The finding kind (gitleaks' rule id where the rule is theirs). */
  kind: string
  /** Literal strings that every match contains; searched with indexOf (in the ASCII-lowered text when `ci`). */
  keywords: string[]
  /** Keywords are matched case-insensitively (given in lower case). */
  ci?: boolean
  /** A match starts this many characters before its keyword. */
  back?: number
  /** The pattern, sticky, anchored at the match start; bounded quantifiers only. */
  re: RegExp
  /** The character before the match may not be a word character (`\b`); default true. */
  wordStart?: boolean
  /** The character after the match may not be a word character; default false. */
  wordEnd?: boolean
  /** Minimum Shannon entropy of the match (gitleaks' `Entropy`). */
  entropy?: number
  /** The secret is this capture group of the match (the pattern has the `d` flag); default the whole match. */
  group?: number
  /** A match that is a known stand-in (gitleaks' allowlists). */
  allow?: (secret: string) => boolean
}

/** A credential after a keyword that is a template, a variable or plain words rather than a secret. */
function unlikelySecret(secret: string): boolean {
  return !hasDigit(secret) || isPlaceholder(secret)
}

export const TOKEN_RULES: TokenRule[] = [
  // aws.go, aws-access-token (allowlist: keys ending in EXAMPLE, as in AWS's own documentation).
  {
    kind: 'aws-access-token',
    keywords: ['A3T', 'AKIA', 'ASIA', 'ABIA', 'ACCA'],
    re: /(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}/y,
    wordEnd: true,
    entropy: 3,
    allow: (m) => m.endsWith('EXAMPLE'),
  },
  // gcp.go, gcp-api-key.
  {kind: 'gcp-api-key', keywords: ['AIza'], re: /AIza[\w-]{35}/y, wordEnd: true, entropy: 4},
  // azure.go, azure-ad-client-secret: three characters, a digit, then "Q~".
  {
    kind: 'azure-ad-client-secret',
    keywords: ['Q~'],
    back: 4,
    re: /[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}/y,
    wordEnd: true,
    entropy: 3,
  },
  // Not in gitleaks: the AccountKey of an Azure Storage connection string, 64 bytes in base64
  // (https://learn.microsoft.com/azure/storage/common/storage-configure-connection-string).
  {kind: 'azure-storage-account-key', keywords: ['accountkey='], ci: true, re: /AccountKey=([A-Za-z0-9+/]{86}==)/diy, group: 1, entropy: 4},
  // github.go: github-pat, github-fine-grained-pat, github-oauth, github-app-token, github-refresh-token.
  {kind: 'github-pat', keywords: ['ghp_'], re: /ghp_[0-9a-zA-Z]{36}/y, entropy: 3},
  {kind: 'github-fine-grained-pat', keywords: ['github_pat_'], re: /github_pat_\w{82}/y, entropy: 3},
  {kind: 'github-oauth', keywords: ['gho_'], re: /gho_[0-9a-zA-Z]{36}/y, entropy: 3},
  {kind: 'github-app-token', keywords: ['ghu_', 'ghs_'], re: /(?:ghu|ghs)_[0-9a-zA-Z]{36}/y, entropy: 3},
  {kind: 'github-refresh-token', keywords: ['ghr_'], re: /ghr_[0-9a-zA-Z]{36}/y, entropy: 3},
  // gitlab.go: gitlab-pat, gitlab-pat-routable, gitlab-deploy-token, gitlab-runner-authentication-token, gitlab-cicd-job-token.
  {kind: 'gitlab-pat', keywords: ['glpat-'], re: /glpat-(?:[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{9}|[\w-]{20})/y, entropy: 3},
  {kind: 'gitlab-deploy-token', keywords: ['gldt-'], re: /gldt-[0-9a-zA-Z_-]{20}/y, entropy: 3},
  {kind: 'gitlab-runner-authentication-token', keywords: ['glrt-'], re: /glrt-[0-9a-zA-Z_-]{20}/y, entropy: 3},
  {kind: 'gitlab-cicd-job-token', keywords: ['glcbt-'], re: /glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}/y, entropy: 3},
  // slack.go: slack-user-token, slack-app-token, slack-legacy-workspace-token, slack-webhook-url; slack-bot-token here
  // also covers slack-legacy-bot-token (one pattern for both, its open-ended tail bounded at 64).
  {kind: 'slack-bot-token', keywords: ['xoxb-'], re: /xoxb-[0-9]{8,14}-(?:[0-9]{10,13}-)?[a-zA-Z0-9-]{18,64}/y, entropy: 3},
  {
    kind: 'slack-user-token',
    keywords: ['xoxp-', 'xoxe-'],
    re: /xox[pe]-[0-9]{10,13}-[0-9]{10,13}-[0-9]{10,13}-[a-zA-Z0-9-]{28,34}/y,
    entropy: 2,
  },
  {kind: 'slack-app-token', keywords: ['xapp-'], ci: true, re: /xapp-\d-[A-Z0-9]{1,20}-\d{1,20}-[a-z0-9]{1,100}/iy, entropy: 2},
  {kind: 'slack-legacy-workspace-token', keywords: ['xoxa-', 'xoxr-'], re: /xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}/y, entropy: 2},
  {
    kind: 'slack-webhook-url',
    keywords: ['hooks.slack.com/'],
    re: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/]{43,56}/y,
    wordStart: false,
  },
  // stripe.go, stripe-access-token.
  {
    kind: 'stripe-access-token',
    keywords: ['sk_', 'rk_'],
    re: /(?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99}/y,
    wordEnd: true,
    entropy: 2,
  },
  // npm.go, npm-access-token.
  {kind: 'npm-access-token', keywords: ['npm_'], ci: true, re: /npm_[a-z0-9]{36}/iy, wordEnd: true, entropy: 2},
  // pypi.go, pypi-upload-token.
  {kind: 'pypi-upload-token', keywords: ['pypi-AgEIcHlwaS5vcmc'], re: /pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}/y, entropy: 3},
  // jwt.go, jwt: a header and a payload that are base64url JSON objects ("ey" is how `{"` begins), and a signature.
  {
    kind: 'jwt',
    keywords: ['ey'],
    re: /ey[a-zA-Z0-9]{17,4096}\.ey[a-zA-Z0-9/\\_-]{17,8192}\.(?:[a-zA-Z0-9/\\_-]{10,4096}={0,2})?/y,
    entropy: 3,
  },
  // openai.go, openai-api-key; anthropic.go, anthropic-api-key and anthropic-admin-api-key.
  {
    kind: 'openai-api-key',
    keywords: ['sk-'],
    wordEnd: true,
    entropy: 3,
    re: /sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{58,74}T3BlbkFJ[A-Za-z0-9_-]{58,74}|[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})/y,
  },
  {kind: 'anthropic-api-key', keywords: ['sk-ant-'], re: /sk-ant-(?:api03|admin01)-[a-zA-Z0-9_-]{93}AA/y, wordEnd: true},
  // sendgrid.go, sendgrid-api-token; twilio.go, twilio-api-key.
  {kind: 'sendgrid-api-token', keywords: ['SG.'], re: /SG\.[a-zA-Z0-9=_.-]{66}/y, wordEnd: true, entropy: 2},
  {kind: 'twilio-api-key', keywords: ['SK'], re: /SK[0-9a-fA-F]{32}/y, wordEnd: true, entropy: 3},
  // digitalocean.go, digitalocean-pat / -access-token / -refresh-token; shopify.go, shopify-*-token.
  {kind: 'digitalocean-token', keywords: ['dop_v1_', 'doo_v1_', 'dor_v1_'], re: /do[por]_v1_[a-f0-9]{64}/y, wordEnd: true, entropy: 3},
  {kind: 'shopify-token', keywords: ['shpss_', 'shpat_', 'shpca_', 'shppa_'], re: /shp(?:ss|at|ca|pa)_[a-fA-F0-9]{32}/y, entropy: 2},
  // hashicorp_vault.go, vault-service-token (the hvs. form); huggingface.go, huggingface-access-token.
  {kind: 'vault-service-token', keywords: ['hvs.'], re: /hvs\.[\w-]{90,120}/y, wordEnd: true, entropy: 3.5},
  {kind: 'huggingface-access-token', keywords: ['hf_'], re: /hf_[a-zA-Z]{34}/y, wordEnd: true, entropy: 2},
  // kb's own secrets: API keys (server/services/api-keys.ts) and OAuth tokens, codes and client secrets (server/oauth/config.ts).
  {
    kind: 'kb-api-key',
    keywords: ['kb_', 'kbat_', 'kbrt_', 'kbac_', 'kbcs_'],
    re: /kb(?:|at|rt|ac|cs)_[0-9A-Za-z]{43}/y,
    wordEnd: true,
    entropy: 3,
  },
  // Not in gitleaks as such: its curl-auth-header rule (curl.go) reads the same header only inside a curl command;
  // logs and notes carry it bare. The credential alone is the finding, so "Authorization: Bearer" stays readable.
  {
    kind: 'authorization-header',
    keywords: ['authorization'],
    ci: true,
    group: 1,
    entropy: 2.75,
    allow: unlikelySecret,
    re: /authorization["']?[ \t]{0,5}[:=][ \t]{0,5}["']?(?:(?:basic|bearer|token|api-token)[ \t]{1,5})?([\w=~@.+/-]{8,4096})/diy,
  },
  {
    kind: 'bearer-token',
    keywords: ['bearer'],
    ci: true,
    re: /bearer[ \t]{1,5}([\w=~@.+/-]{16,4096})/diy,
    group: 1,
    entropy: 3,
    allow: unlikelySecret,
  },
]
