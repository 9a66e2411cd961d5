/**
 * @module The PostgreSQL schema as numbered migrations; `kb_schema` records how far a database has come, and
 * postgres-db.ts applies the missing steps under an advisory lock, so daemons starting together migrate once.
 * Append new steps, never edit a released one. Text that is compared or ranged over (ids, times, terms) is
 * COLLATE "C": byte order, as SQLite compares, whatever locale the database was created with.
 */

import {BACKFILL_SQL} from './history-store.js'
import {postgresTallyMigration} from './review-tally.js'
import {shortIdsMigration} from './short-ids.js'

export const POSTGRES_MIGRATIONS: readonly string[] = [
  // 1: the whole initial schema, with search (postgres-search-index.ts): each entry's index terms as a
  // tsvector (title weight A, tags B, body D) built from the shared tokenizer's output, so PostgreSQL matches
  // exactly the terms SQLite's FTS5 holds. search_terms counts the entries holding each term (BM25's document
  // frequency) and is the vocabulary typo tolerance and completion read; search_stats holds the collection's
  // size and field lengths. Both are split into 16 shards by entry (seq % 16), so concurrent writers of
  // different entries seldom wait on the same counter row.
  `
  CREATE TABLE principals (
    id text COLLATE "C" PRIMARY KEY,
    name text COLLATE "C" NOT NULL UNIQUE,
    role text NOT NULL CHECK (role IN ('owner', 'member')),
    created_at text COLLATE "C" NOT NULL
  );
  CREATE TABLE api_keys (
    id text COLLATE "C" PRIMARY KEY,
    principal_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    name text NOT NULL,
    prefix text NOT NULL,
    hash text COLLATE "C" NOT NULL UNIQUE,
    project_id text COLLATE "C",
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C",
    last_used_at text COLLATE "C",
    revoked_at text COLLATE "C"
  );
  CREATE INDEX api_keys_principal ON api_keys(principal_id);
  CREATE TABLE projects (
    id text COLLATE "C" PRIMARY KEY,
    name text NOT NULL,
    remote text COLLATE "C" NOT NULL UNIQUE,
    created_by text COLLATE "C" NOT NULL REFERENCES principals(id),
    created_at text COLLATE "C" NOT NULL
  );
  CREATE TABLE memberships (
    project_id text COLLATE "C" NOT NULL REFERENCES projects(id),
    principal_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    role text NOT NULL CHECK (role IN ('maintainer', 'member')),
    created_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (principal_id, project_id)
  );
  CREATE TABLE entries (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    title text NOT NULL,
    body text NOT NULL,
    summary text NOT NULL,
    summary_title text NOT NULL,
    scope text NOT NULL CHECK (scope IN ('private', 'project', 'global')),
    project_id text COLLATE "C",
    tags text NOT NULL,
    url text,
    status text NOT NULL CHECK (status IN ('open', 'resolved')),
    resolution text,
    thought_chain text NOT NULL,
    forked_from text COLLATE "C",
    author_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    created_at text COLLATE "C" NOT NULL,
    updated_at text COLLATE "C" NOT NULL,
    version integer NOT NULL,
    comment_count integer NOT NULL DEFAULT 0,
    search tsvector NOT NULL,
    title_len integer NOT NULL,
    tags_len integer NOT NULL,
    body_len integer NOT NULL
  );
  CREATE INDEX entries_updated ON entries(updated_at DESC, id DESC);
  CREATE INDEX entries_project ON entries(project_id, updated_at DESC);
  CREATE INDEX entries_author ON entries(author_id, updated_at DESC);
  CREATE INDEX entries_forked_from ON entries(forked_from) WHERE forked_from IS NOT NULL;
  CREATE INDEX entries_scope_author ON entries(scope, author_id);
  CREATE INDEX entries_scope_project ON entries(scope, project_id);
  CREATE INDEX entries_search ON entries USING gin (search);
  CREATE TABLE entry_tags (
    tag text COLLATE "C" NOT NULL,
    seq bigint NOT NULL REFERENCES entries(seq) ON DELETE CASCADE,
    PRIMARY KEY (tag, seq)
  );
  CREATE INDEX entry_tags_seq ON entry_tags(seq);
  CREATE TABLE comments (
    n bigint GENERATED ALWAYS AS IDENTITY,
    id text COLLATE "C" PRIMARY KEY,
    entry_seq bigint NOT NULL REFERENCES entries(seq) ON DELETE CASCADE,
    body text NOT NULL,
    type text NOT NULL,
    author_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    created_at text COLLATE "C" NOT NULL
  );
  CREATE INDEX comments_entry ON comments(entry_seq, created_at, n);
  CREATE TABLE search_terms (
    term text COLLATE "C" NOT NULL,
    shard smallint NOT NULL,
    head text COLLATE "C" NOT NULL,
    len smallint NOT NULL,
    rev text COLLATE "C" NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (term, shard)
  );
  CREATE INDEX search_terms_prefix ON search_terms(head, len, term);
  CREATE INDEX search_terms_suffix ON search_terms(head, len, rev);
  CREATE TABLE search_stats (
    shard smallint PRIMARY KEY,
    docs bigint NOT NULL DEFAULT 0,
    title bigint NOT NULL DEFAULT 0,
    tags bigint NOT NULL DEFAULT 0,
    body bigint NOT NULL DEFAULT 0
  );
  INSERT INTO search_stats (shard) SELECT generate_series(0, 15);
  -- Idempotency-Key records (server/store/postgres-idempotency.ts), one per principal and key.
  CREATE TABLE idempotency_keys (
    principal_id text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    fingerprint text,
    claim text NOT NULL,
    status integer,
    headers text,
    body text,
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (principal_id, key)
  );
  CREATE INDEX idempotency_keys_expires ON idempotency_keys(expires_at);
  `,
  // 2: OAuth 2.1 records (server/oauth). Every secret (client secret, code, token, CSRF token) is a SHA-256 hash.
  `
  CREATE TABLE oauth_clients (
    id text COLLATE "C" PRIMARY KEY,
    secret_hash text,
    metadata text NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    last_used_at text COLLATE "C"
  );
  CREATE TABLE oauth_requests (
    id text COLLATE "C" PRIMARY KEY,
    csrf_hash text NOT NULL,
    client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    redirect_uri text NOT NULL,
    redirect_uri_given boolean NOT NULL,
    code_challenge text NOT NULL,
    resource text NOT NULL,
    scope text,
    state text,
    attempts integer NOT NULL DEFAULT 0,
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL
  );
  CREATE INDEX oauth_requests_expires ON oauth_requests(expires_at);
  CREATE TABLE oauth_codes (
    hash text COLLATE "C" PRIMARY KEY,
    grant_id text COLLATE "C" NOT NULL,
    client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    principal_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    project_id text COLLATE "C",
    redirect_uri text NOT NULL,
    redirect_uri_given boolean NOT NULL,
    code_challenge text NOT NULL,
    resource text NOT NULL,
    scope text,
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL,
    used_at text COLLATE "C"
  );
  CREATE INDEX oauth_codes_expires ON oauth_codes(expires_at);
  CREATE INDEX oauth_codes_client ON oauth_codes(client_id);
  CREATE TABLE oauth_tokens (
    hash text COLLATE "C" PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
    grant_id text COLLATE "C" NOT NULL,
    client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    principal_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    project_id text COLLATE "C",
    resource text NOT NULL,
    scope text,
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL,
    used_at text COLLATE "C",
    revoked_at text COLLATE "C"
  );
  -- One row per approval (docs/oauth.md, "Grants"), tied to the API key that approved it, with an absolute end.
  CREATE TABLE oauth_grants (
    id text COLLATE "C" PRIMARY KEY,
    client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    principal_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    api_key_id text COLLATE "C" NOT NULL REFERENCES api_keys(id),
    project_id text COLLATE "C",
    scope text,
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL,
    last_used_at text COLLATE "C",
    revoked_at text COLLATE "C"
  );
  CREATE INDEX oauth_grants_principal ON oauth_grants(principal_id);
  CREATE INDEX oauth_grants_expires ON oauth_grants(expires_at);
  CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);
  CREATE INDEX oauth_tokens_expires ON oauth_tokens(expires_at);
  CREATE INDEX oauth_tokens_client ON oauth_tokens(client_id);
  `,
  // 3: search that speaks code and every script (server/search/tokenizer.ts): the index terms changed (code tokens
  // whole and split, CJK bigrams, German spellings), so every entry written before is marked stale and indexed
  // again with the new terms when a daemon opens the store (postgres-entries.ts reindexStale); entries written
  // from now on carry the current version. Counters follow, from the stored vectors, as on any write.
  `
  ALTER TABLE entries ADD COLUMN search_version smallint NOT NULL DEFAULT 0;
  ALTER TABLE entries ALTER COLUMN search_version SET DEFAULT 1;
  CREATE INDEX entries_search_stale ON entries(seq) WHERE search_version < 1;
  `,
  // 4: trust (docs/api.md, "Anchors, freshness, verify and flags"): as SQLite's step 8, with the same columns. The
  // summary item now carries `freshness`, which the budget counts: every summary is computed again when a daemon
  // opens the store (postgres-entries.ts resummarizeStale), entries written from now on carry the current version.
  `
  ALTER TABLE entries ADD COLUMN anchors text NOT NULL DEFAULT '[]';
  ALTER TABLE entries ADD COLUMN flags text NOT NULL DEFAULT '{"stale":0,"incorrect":0,"duplicate":0,"obsolete":0}';
  ALTER TABLE entries ADD COLUMN flagged_at text COLLATE "C";
  ALTER TABLE entries ADD COLUMN verified_at text COLLATE "C";
  ALTER TABLE entries ADD COLUMN verified_by text;
  ALTER TABLE entries ADD COLUMN verifications text NOT NULL DEFAULT '[]';
  ALTER TABLE entries ADD COLUMN corrections integer NOT NULL DEFAULT 0;
  ALTER TABLE entries ADD COLUMN summary_version smallint NOT NULL DEFAULT 0;
  ALTER TABLE entries ALTER COLUMN summary_version SET DEFAULT 1;
  CREATE INDEX entries_summary_stale ON entries(seq) WHERE summary_version < 1;
  CREATE TABLE flags (
    entry_id text COLLATE "C" NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    principal_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    reason text NOT NULL CHECK (reason IN ('stale', 'incorrect', 'duplicate', 'obsolete')),
    note text,
    duplicate_of text COLLATE "C",
    created_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (entry_id, principal_id)
  );
  ALTER TABLE projects ADD COLUMN verify_after_days integer NOT NULL DEFAULT 180;
  `,
  // 5: recalls (docs/api.md, "Recall"): the record of knowledge given to agents, newest first per principal, kept for a
  // retention period (purged by age).
  `
  CREATE TABLE recalls (
    id text COLLATE "C" PRIMARY KEY,
    principal_id text COLLATE "C" NOT NULL,
    at text COLLATE "C" NOT NULL,
    source text NOT NULL,
    client text,
    session text,
    query text NOT NULL,
    items text NOT NULL
  );
  CREATE INDEX recalls_principal ON recalls(principal_id, at DESC, id DESC);
  CREATE INDEX recalls_at ON recalls(at);
  `,
  // 6: project membership (docs/api.md, "Membership"): as SQLite's step 10, with the same tables. Memberships stay as they
  // are; every project's creator is made its maintainer.
  `
  CREATE TABLE project_requests (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES projects(id),
    principal_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    status text NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
    created_at text COLLATE "C" NOT NULL,
    decided_at text COLLATE "C",
    decided_by text COLLATE "C"
  );
  CREATE UNIQUE INDEX project_requests_pending ON project_requests(project_id, principal_id) WHERE status = 'pending';
  CREATE INDEX project_requests_project ON project_requests(project_id, status, created_at);
  CREATE TABLE invitations (
    id text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES projects(id),
    principal_id text COLLATE "C" REFERENCES principals(id),
    token_hash text COLLATE "C" UNIQUE,
    created_by text COLLATE "C" NOT NULL REFERENCES principals(id),
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL,
    used_at text COLLATE "C",
    used_by text COLLATE "C"
  );
  CREATE INDEX invitations_principal ON invitations(project_id, principal_id) WHERE principal_id IS NOT NULL;
  UPDATE memberships m SET role = 'maintainer' FROM projects p WHERE p.id = m.project_id AND p.created_by = m.principal_id;
  INSERT INTO memberships (project_id, principal_id, role, created_at)
    SELECT id, created_by, 'maintainer', created_at FROM projects ON CONFLICT DO NOTHING;
  `,
  // 7: supersede (docs/api.md, "Supersede"): as SQLite's step 11.
  `
  ALTER TABLE entries ADD COLUMN superseded_by text COLLATE "C";
  CREATE INDEX entries_superseded_by ON entries(superseded_by) WHERE superseded_by IS NOT NULL;
  `,
  // 8: secrets the server keeps in its store, as SQLite's step 12.
  `
  CREATE TABLE server_secrets (
    name text COLLATE "C" PRIMARY KEY,
    value text NOT NULL
  );
  `,
  // 9: curation (docs/api.md, "History, usage and the review queue"): one history row per change to an entry, written
  // in the change's transaction (gone with the entry); retrieval counts beside the entry, added in batches by every
  // daemon; the review queue reads entries most retrieved first.
  `
  CREATE TABLE history (
    id text COLLATE "C" PRIMARY KEY,
    entry_id text COLLATE "C" NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    at text COLLATE "C" NOT NULL,
    action text NOT NULL,
    actor_id text COLLATE "C" NOT NULL,
    actor_name text NOT NULL,
    via text NOT NULL,
    client text,
    changes text NOT NULL,
    note text
  );
  CREATE INDEX history_entry ON history(entry_id, at, id);
  ALTER TABLE entries ADD COLUMN retrieved bigint NOT NULL DEFAULT 0;
  ALTER TABLE entries ADD COLUMN last_retrieved_at text COLLATE "C";
  CREATE INDEX entries_retrieved ON entries(retrieved DESC, id);
  `,
  // 10: an Idempotency-Key claim names the backend of its daemon's lease session (server/store/postgres-lease.ts), so
  // a retry takes over the claim of a daemon that died as soon as PostgreSQL has ended that session.
  `
  ALTER TABLE idempotency_keys ADD COLUMN holder_pid integer;
  ALTER TABLE idempotency_keys ADD COLUMN holder_started timestamptz;
  `,
  // 11: similar pairs for the review queue (docs/api.md, "Review queue"): entries found alike when one was written
  // (`entry_id`, the one written; `other_id`, the one it looks like), gone with either entry; `dismissed_at` once a
  // person said they are not the same.
  `
  CREATE TABLE similar_pairs (
    entry_id text COLLATE "C" NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    other_id text COLLATE "C" NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    similarity double precision NOT NULL,
    found_at text COLLATE "C" NOT NULL,
    dismissed_at text COLLATE "C",
    dismissed_by text COLLATE "C",
    PRIMARY KEY (entry_id, other_id)
  );
  CREATE INDEX similar_pairs_other ON similar_pairs(other_id);
  -- The review queue's counts read this index alone (an index-only scan), not the rows (docs/performance.md, "Review
  -- queue"): visibility's columns as keys, every column a kind tests included; whether an anchor is changed or deleted
  -- (trust.ts ANCHOR_STALE_PATTERNS) as a column of its own, so that the index holds it.
  ALTER TABLE entries ADD COLUMN anchors_stale boolean GENERATED ALWAYS AS
    (anchors LIKE '%"state":"changed"%' OR anchors LIKE '%"state":"deleted"%') STORED;
  CREATE INDEX entries_review ON entries(scope, project_id, author_id)
    INCLUDE (superseded_by, verified_at, updated_at, flagged_at, created_at, last_retrieved_at, flags, anchors_stale);
  `,
  // 12: the web view's sessions and one-time sign-in links, as SQLite's step 15.
  `
  CREATE TABLE web_sessions (
    id text COLLATE "C" PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('session', 'link')),
    hash text COLLATE "C" NOT NULL UNIQUE,
    principal_id text COLLATE "C" NOT NULL REFERENCES principals(id),
    api_key_id text COLLATE "C" NOT NULL REFERENCES api_keys(id),
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL,
    last_used_at text COLLATE "C",
    used_at text COLLATE "C",
    revoked_at text COLLATE "C",
    user_agent text
  );
  CREATE INDEX web_sessions_principal ON web_sessions(principal_id, created_at);
  CREATE INDEX web_sessions_expires ON web_sessions(expires_at);
  `,
  // 13: short ids, as SQLite's step 16 (the reversed id is stored: PostgreSQL computes no virtual columns).
  shortIdsMigration('STORED', 'COLLATE "C"'),
  // 14: the review queue's counts kept by the writes, as SQLite's step 17 (statement triggers over transition tables).
  postgresTallyMigration(),
  // 15: the similar-pairs backfill's bounds, as SQLite's step 18.
  BACKFILL_SQL.table,
]
