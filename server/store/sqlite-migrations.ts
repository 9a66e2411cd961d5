/**
 * @module The SQLite schema as numbered migrations; `PRAGMA user_version` records how far a file has come.
 * Append new steps, never edit a released one.
 */

import {BACKFILL_SQL} from './history-store.js'
import {sqliteTallyMigration} from './review-tally.js'
import {shortIdsMigration} from './short-ids.js'

export const SQLITE_MIGRATIONS: readonly string[] = [
  // 1: the whole initial schema
  `
  CREATE TABLE principals (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
    created_at TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    principal_id TEXT NOT NULL REFERENCES principals(id),
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    project_id TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    last_used_at TEXT,
    revoked_at TEXT
  );
  CREATE INDEX api_keys_principal ON api_keys(principal_id);
  CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    remote TEXT NOT NULL UNIQUE,
    created_by TEXT NOT NULL REFERENCES principals(id),
    created_at TEXT NOT NULL
  );
  CREATE TABLE memberships (
    project_id TEXT NOT NULL REFERENCES projects(id),
    principal_id TEXT NOT NULL REFERENCES principals(id),
    role TEXT NOT NULL CHECK (role IN ('maintainer', 'member')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (principal_id, project_id)
  ) WITHOUT ROWID;
  CREATE TABLE entries (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    summary TEXT NOT NULL,
    summary_title TEXT NOT NULL,
    scope TEXT NOT NULL CHECK (scope IN ('private', 'project', 'global')),
    project_id TEXT,
    tags TEXT NOT NULL,
    url TEXT,
    status TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    resolution TEXT,
    thought_chain TEXT NOT NULL,
    forked_from TEXT,
    author_id TEXT NOT NULL REFERENCES principals(id),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    version INTEGER NOT NULL,
    comment_count INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX entries_updated ON entries(updated_at DESC, id DESC);
  CREATE INDEX entries_project ON entries(project_id, updated_at DESC);
  CREATE INDEX entries_author ON entries(author_id, updated_at DESC);
  CREATE INDEX entries_forked_from ON entries(forked_from) WHERE forked_from IS NOT NULL;
  CREATE TABLE entry_tags (
    tag TEXT NOT NULL,
    seq INTEGER NOT NULL REFERENCES entries(seq) ON DELETE CASCADE,
    PRIMARY KEY (tag, seq)
  ) WITHOUT ROWID;
  CREATE INDEX entry_tags_seq ON entry_tags(seq);
  CREATE TABLE comments (
    id TEXT PRIMARY KEY,
    entry_seq INTEGER NOT NULL REFERENCES entries(seq) ON DELETE CASCADE,
    body TEXT NOT NULL,
    type TEXT NOT NULL,
    author_id TEXT NOT NULL REFERENCES principals(id),
    created_at TEXT NOT NULL
  );
  CREATE INDEX comments_entry ON comments(entry_seq, created_at);
  -- tags are indexed as their JSON text: the tokenizer splits on its punctuation.
  CREATE VIRTUAL TABLE entries_fts USING fts5(
    title, tags, body,
    content='entries', content_rowid='seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE VIRTUAL TABLE entries_vocab USING fts5vocab(entries_fts, 'row');
  CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, title, tags, body) VALUES (new.seq, new.title, new.tags, new.body);
  END;
  CREATE TRIGGER entries_ad AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, title, tags, body) VALUES ('delete', old.seq, old.title, old.tags, old.body);
  END;
  CREATE TRIGGER entries_au AFTER UPDATE OF title, tags, body ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, title, tags, body) VALUES ('delete', old.seq, old.title, old.tags, old.body);
    INSERT INTO entries_fts(rowid, title, tags, body) VALUES (new.seq, new.title, new.tags, new.body);
  END;
  `,
  // 2: OAuth 2.1 records (server/oauth). Every secret (client secret, code, token, CSRF token) is a SHA-256 hash.
  `
  CREATE TABLE oauth_clients (
    id TEXT PRIMARY KEY,
    secret_hash TEXT,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT
  );
  CREATE TABLE oauth_requests (
    id TEXT PRIMARY KEY,
    csrf_hash TEXT NOT NULL,
    client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    redirect_uri TEXT NOT NULL,
    redirect_uri_given INTEGER NOT NULL,
    code_challenge TEXT NOT NULL,
    resource TEXT NOT NULL,
    scope TEXT,
    state TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX oauth_requests_expires ON oauth_requests(expires_at);
  CREATE TABLE oauth_codes (
    hash TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL,
    client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    principal_id TEXT NOT NULL REFERENCES principals(id),
    project_id TEXT,
    redirect_uri TEXT NOT NULL,
    redirect_uri_given INTEGER NOT NULL,
    code_challenge TEXT NOT NULL,
    resource TEXT NOT NULL,
    scope TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX oauth_codes_expires ON oauth_codes(expires_at);
  CREATE TABLE oauth_tokens (
    hash TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    grant_id TEXT NOT NULL,
    client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    principal_id TEXT NOT NULL REFERENCES principals(id),
    project_id TEXT,
    resource TEXT NOT NULL,
    scope TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    revoked_at TEXT
  );
  CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);
  CREATE INDEX oauth_tokens_expires ON oauth_tokens(expires_at);
  CREATE INDEX oauth_tokens_client ON oauth_tokens(client_id);
  `,
  // 3: search (sqlite-search-index.ts). Two indexes tell with a few seeks whether a caller may see every
  // entry; search_vocab holds the index's terms by first character and length, where typo tolerance looks
  // for near spellings (scanning FTS5's own vocabulary reads every doclist on the way: 100 ms at 100k).
  `
  CREATE INDEX entries_scope_author ON entries(scope, author_id);
  CREATE INDEX entries_scope_project ON entries(scope, project_id);
  CREATE TABLE search_vocab (
    head TEXT NOT NULL,
    len INTEGER NOT NULL,
    term TEXT NOT NULL,
    PRIMARY KEY (head, len, term)
  ) WITHOUT ROWID;
  INSERT OR IGNORE INTO search_vocab (head, len, term)
    SELECT substr(term, 1, 1), length(term), term FROM entries_vocab WHERE length(term) >= 4;
  `,
  // 4: bounded typo lookups and a vocabulary without dead terms (server/search/vocabulary.ts). search_vocab gains
  // each term reversed (kb_reverse, registered by sqlite.ts), indexed, so that a lookup reads terms by their
  // ending as well as by their beginning; it is rebuilt from the index, leaving out terms no entry holds any
  // more. entries_instances tells with one seek whether any entry still holds a term, so that every write
  // prunes the terms it removed (server/store/sqlite-entries.ts).
  `
  DROP TABLE search_vocab;
  CREATE TABLE search_vocab (
    head TEXT NOT NULL,
    len INTEGER NOT NULL,
    term TEXT NOT NULL,
    rev TEXT NOT NULL,
    PRIMARY KEY (head, len, term)
  ) WITHOUT ROWID;
  CREATE INDEX search_vocab_rev ON search_vocab(head, len, rev);
  INSERT INTO search_vocab (head, len, term, rev)
    SELECT substr(term, 1, 1), length(term), term, kb_reverse(term) FROM entries_vocab WHERE length(term) >= 4 AND doc > 0;
  CREATE VIRTUAL TABLE entries_instances USING fts5vocab(entries_fts, 'instance');
  `,
  // 5: Idempotency-Key records (server/store/sqlite-idempotency.ts), one per principal and key; a rowid table, since
  // a stored answer can be as large as an entry.
  `
  CREATE TABLE idempotency_keys (
    principal_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT,
    claim TEXT NOT NULL,
    status INTEGER,
    headers TEXT,
    body TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    UNIQUE (principal_id, key)
  );
  CREATE INDEX idempotency_keys_expires ON idempotency_keys(expires_at);
  `,
  // 6: OAuth grants (docs/oauth.md, "Grants"): one row per approval, tied to the API key that approved it, with
  // an absolute end; its tokens live only while it does. Tokens of grants approved before this step were tied
  // to no key: they end here (the client signs in again).
  `
  CREATE TABLE oauth_grants (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    principal_id TEXT NOT NULL REFERENCES principals(id),
    api_key_id TEXT NOT NULL REFERENCES api_keys(id),
    project_id TEXT,
    scope TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  );
  CREATE INDEX oauth_grants_principal ON oauth_grants(principal_id);
  CREATE INDEX oauth_grants_expires ON oauth_grants(expires_at);
  UPDATE oauth_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE revoked_at IS NULL;
  `,
  // 7: search that speaks code and every script (server/search/tokenizer.ts). The index holds the tokenizer's
  // terms — code tokens whole and split, CJK bigrams, German spellings — written by the entry writer
  // (sqlite-entries.ts), since FTS5 cannot call the tokenizer; so the table is contentless (a delete names the
  // old terms, which the tokenizer gives again), split on whitespace alone (`ascii` with the joiners as token
  // characters; non-ASCII is always part of a token), and the triggers go. Every entry is indexed again and the
  // vocabulary rebuilt from the new terms.
  `
  DROP TRIGGER entries_ai;
  DROP TRIGGER entries_ad;
  DROP TRIGGER entries_au;
  DROP TABLE entries_instances;
  DROP TABLE entries_vocab;
  DROP TABLE entries_fts;
  CREATE VIRTUAL TABLE entries_fts USING fts5(
    title, tags, body,
    content = '',
    tokenize = "ascii tokenchars '_-./\\:'"
  );
  CREATE VIRTUAL TABLE entries_vocab USING fts5vocab(entries_fts, 'row');
  CREATE VIRTUAL TABLE entries_instances USING fts5vocab(entries_fts, 'instance');
  INSERT INTO entries_fts (rowid, title, tags, body) SELECT seq, kb_index_text(title), kb_index_tags(tags), kb_index_text(body) FROM entries;
  DELETE FROM search_vocab;
  INSERT INTO search_vocab (head, len, term, rev)
    SELECT substr(term, 1, 1), length(term), term, kb_reverse(term) FROM entries_vocab WHERE doc > 0 AND kb_in_vocabulary(term);
  `,
  // 8: trust (docs/api.md, "Anchors, freshness, verify and flags"): an entry's anchors, open-flag counts, its
  // verifications and corrections beside it (ranking and freshness read one row); one open flag per principal per
  // entry; a project's verify_after_days. Summaries are computed again (kb_summary, registered by sqlite.ts): the
  // summary item now carries `freshness`, which the budget counts (docs/api.md, "Summary form").
  `
  ALTER TABLE entries ADD COLUMN anchors TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE entries ADD COLUMN flags TEXT NOT NULL DEFAULT '{"stale":0,"incorrect":0,"duplicate":0,"obsolete":0}';
  ALTER TABLE entries ADD COLUMN flagged_at TEXT;
  ALTER TABLE entries ADD COLUMN verified_at TEXT;
  ALTER TABLE entries ADD COLUMN verified_by TEXT;
  ALTER TABLE entries ADD COLUMN verifications TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE entries ADD COLUMN corrections INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE flags (
    entry_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    principal_id TEXT NOT NULL REFERENCES principals(id),
    reason TEXT NOT NULL CHECK (reason IN ('stale', 'incorrect', 'duplicate', 'obsolete')),
    note TEXT,
    duplicate_of TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (entry_id, principal_id)
  );
  ALTER TABLE projects ADD COLUMN verify_after_days INTEGER NOT NULL DEFAULT 180;
  UPDATE entries SET summary = kb_summary(id, title, body, 'body'), summary_title = kb_summary(id, title, body, 'title');
  `,
  // 9: recalls (docs/api.md, "Recall"): the record of knowledge given to agents, newest first per principal, kept for a
  // retention period (purged by age).
  `
  CREATE TABLE recalls (
    id TEXT PRIMARY KEY,
    principal_id TEXT NOT NULL,
    at TEXT NOT NULL,
    source TEXT NOT NULL,
    client TEXT,
    session TEXT,
    query TEXT NOT NULL,
    items TEXT NOT NULL
  );
  CREATE INDEX recalls_principal ON recalls(principal_id, at DESC, id DESC);
  CREATE INDEX recalls_at ON recalls(at);
  `,
  // 10: project membership (docs/api.md, "Membership"): join requests a maintainer approves or denies (one pending per
  // principal and project), and invitations, by name or as a one-time link whose token is stored as a SHA-256 hash.
  // Memberships stay as they are; every project's creator is made its maintainer.
  `
  CREATE TABLE project_requests (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(id),
    principal_id TEXT NOT NULL REFERENCES principals(id),
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
    created_at TEXT NOT NULL,
    decided_at TEXT,
    decided_by TEXT
  );
  CREATE UNIQUE INDEX project_requests_pending ON project_requests(project_id, principal_id) WHERE status = 'pending';
  CREATE INDEX project_requests_project ON project_requests(project_id, status, created_at);
  CREATE TABLE invitations (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(id),
    principal_id TEXT REFERENCES principals(id),
    token_hash TEXT UNIQUE,
    created_by TEXT NOT NULL REFERENCES principals(id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    used_by TEXT
  );
  CREATE INDEX invitations_principal ON invitations(project_id, principal_id) WHERE principal_id IS NOT NULL;
  UPDATE memberships SET role = 'maintainer'
    WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = memberships.project_id AND p.created_by = memberships.principal_id);
  INSERT OR IGNORE INTO memberships (project_id, principal_id, role, created_at) SELECT id, created_by, 'maintainer', created_at FROM projects;
  `,
  // 11: supersede (docs/api.md, "Supersede"): the entry that replaced this one; list and search leave such entries out.
  `
  ALTER TABLE entries ADD COLUMN superseded_by TEXT;
  CREATE INDEX entries_superseded_by ON entries(superseded_by) WHERE superseded_by IS NOT NULL;
  `,
  // 12: secrets the server keeps in its store (docs/security.md, "Safe publish": the key that signs acknowledgement records).
  `
  CREATE TABLE server_secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 13: curation (docs/api.md, "History, usage and the review queue"): one history row per change to an entry, written
  // in the change's transaction (gone with the entry); retrieval counts beside the entry, added in batches; the
  // review queue reads entries most retrieved first.
  `
  CREATE TABLE history (
    id TEXT PRIMARY KEY,
    entry_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    at TEXT NOT NULL,
    action TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    actor_name TEXT NOT NULL,
    via TEXT NOT NULL,
    client TEXT,
    changes TEXT NOT NULL,
    note TEXT
  );
  CREATE INDEX history_entry ON history(entry_id, at, id);
  ALTER TABLE entries ADD COLUMN retrieved INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE entries ADD COLUMN last_retrieved_at TEXT;
  CREATE INDEX entries_retrieved ON entries(retrieved DESC, id);
  `,
  // 14: similar pairs for the review queue (docs/api.md, "Review queue"): entries found alike when one was written
  // (`entry_id`, the one written; `other_id`, the one it looks like), gone with either entry; `dismissed_at` once a
  // person said they are not the same.
  `
  CREATE TABLE similar_pairs (
    entry_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    other_id TEXT NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    similarity REAL NOT NULL,
    found_at TEXT NOT NULL,
    dismissed_at TEXT,
    dismissed_by TEXT,
    PRIMARY KEY (entry_id, other_id)
  );
  CREATE INDEX similar_pairs_other ON similar_pairs(other_id);
  -- The review queue's counts read this index alone, not the rows (docs/performance.md, "Review queue"): the columns
  -- of visibility first, then every column a kind tests; whether an anchor is changed or deleted (trust.ts
  -- ANCHOR_STALE_PATTERNS) as a column of its own, so that the index holds it.
  ALTER TABLE entries ADD COLUMN anchors_stale INTEGER GENERATED ALWAYS AS
    (anchors LIKE '%"state":"changed"%' OR anchors LIKE '%"state":"deleted"%') VIRTUAL;
  CREATE INDEX entries_review ON entries(scope, project_id, author_id, superseded_by, verified_at, updated_at, flagged_at,
    created_at, last_retrieved_at, flags, anchors_stale);
  `,
  // 15: the web view's sessions and one-time sign-in links (docs/web.md, "Sessions"), stored by the hash of their secret;
  // each ends with the API key that made it.
  `
  CREATE TABLE web_sessions (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('session', 'link')),
    hash TEXT NOT NULL UNIQUE,
    principal_id TEXT NOT NULL REFERENCES principals(id),
    api_key_id TEXT NOT NULL REFERENCES api_keys(id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    last_used_at TEXT,
    used_at TEXT,
    revoked_at TEXT,
    user_agent TEXT
  );
  CREATE INDEX web_sessions_principal ON web_sessions(principal_id, created_at);
  CREATE INDEX web_sessions_expires ON web_sessions(expires_at);
  `,
  // 16: short ids (docs/api.md, "Short ids"): each id's digits reversed as a column with an index, so a suffix is looked
  // up as a range; and the length short forms need, kept by the entry writer (server/store/short-ids.ts).
  shortIdsMigration('VIRTUAL', ''),
  // 17: the review queue's counts kept by the writes (server/store/review-tally.ts; docs/performance.md, "Review
  // queue"): the tally, its triggers, the indexes of the two timestamps that age; the wide review index goes.
  sqliteTallyMigration(),
  // 18: the similar-pairs backfill's bounds (docs/search.md, "Similar entries"): the entries there now were written
  // before kb kept pairs, or may have been; server/services/similar-backfill.ts looks at them after start.
  BACKFILL_SQL.table,
]
