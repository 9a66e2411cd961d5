/**
 * @module The OAuth authorization server's fixed numbers and token shapes, in one place for code and docs.
 */

/** Authorization codes: single use, this short (OAuth 2.1 recommends at most a minute). */
export const CODE_TTL_MS = 60_000
export const ACCESS_TOKEN_TTL_S = 3600
/** A refresh token unused this long expires; each refresh issues a new one (rotation). */
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000
/** A grant's absolute lifetime: no refresh carries its tokens past this many days after the approval (docs/oauth.md, "Grants"). */
export const GRANT_TTL_MS = 90 * 86_400_000
/** How often a grant's last use is written down (like an API key's). */
export const GRANT_TOUCH_EVERY_MS = 60_000
/** How long a consent page stays valid before the person must start again. */
export const CONSENT_TTL_MS = 10 * 60_000
/** Wrong API keys tolerated on one consent page before the request is refused. */
export const MAX_CONSENT_ATTEMPTS = 5
/** Used codes are kept this long after expiry, so a late replay still revokes the tokens issued from them. */
export const CODE_RETENTION_MS = 86_400_000
/** Registered clients that never obtained a token are purged after this. */
export const UNUSED_CLIENT_TTL_MS = 7 * 86_400_000
/** Clients holding no token and unused for this long are purged. */
export const IDLE_CLIENT_TTL_MS = 90 * 86_400_000
/** How often the store is swept of expired records. */
export const PURGE_INTERVAL_MS = 10 * 60_000

/** Registration rate limit per client address: a bucket this big, refilled at this rate. */
export const REGISTRATION_BURST = 30
export const REGISTRATION_PER_MINUTE = 30
/** Consent pages opened per client address (each is a stored pending request until it expires). */
export const CONSENT_BURST = 120
export const CONSENT_PER_MINUTE = 60

/**
 * Secret prefixes: they tell secrets apart at a glance (and for secret scanners). None starts with `kb_`,
 * which the authenticator reserves for API keys.
 */
export const PREFIX = {accessToken: 'kbat_', refreshToken: 'kbrt_', code: 'kbac_', clientSecret: 'kbcs_'} as const
