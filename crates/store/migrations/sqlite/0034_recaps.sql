-- Scheduled recaps (issue 38): members opt in to a daily or weekly recap of
-- a campaign or of the whole organization, e-mailed to them (`user_id`) or
-- posted to a team chat (`chat_kind`, `chat_url`; created by an editor,
-- `created_by`, whose language the post is written in). `scope_key` is the
-- campaign's id as text, or 'organization': a member has at most one e-mail
-- recap per scope and frequency (the partial unique index).
CREATE TABLE recap_subscriptions (
    id              BLOB PRIMARY KEY,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         BLOB REFERENCES users (id) ON DELETE CASCADE,
    chat_kind       TEXT CHECK (chat_kind IN ('slack', 'discord')),
    chat_url        TEXT,
    campaign_id     BLOB REFERENCES campaigns (id) ON DELETE CASCADE,
    scope_key       TEXT NOT NULL,
    frequency       TEXT NOT NULL CHECK (frequency IN ('daily', 'weekly')),
    created_by      BLOB REFERENCES users (id) ON DELETE SET NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    CHECK ((user_id IS NULL) = (chat_url IS NOT NULL)),
    CHECK ((chat_kind IS NULL) = (chat_url IS NULL))
);
CREATE UNIQUE INDEX recap_subscriptions_member
    ON recap_subscriptions (organization_id, user_id, scope_key, frequency)
    WHERE user_id IS NOT NULL;
CREATE INDEX recap_subscriptions_org ON recap_subscriptions (organization_id, created_at);
CREATE INDEX recap_subscriptions_frequency ON recap_subscriptions (frequency, created_at);

-- One row per subscription and period: inserted once (the key decides
-- between workers), then claimed under a lease (`next_attempt_at`
-- moved past the attempt) and finished as sent or failed.
CREATE TABLE recap_sends (
    subscription_id BLOB NOT NULL REFERENCES recap_subscriptions (id) ON DELETE CASCADE,
    period_start    TEXT NOT NULL,
    period_end      TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    lease_token     BLOB,
    next_attempt_at TEXT,
    sent_at         TEXT,
    last_error      TEXT,
    created_at      TEXT NOT NULL,
    PRIMARY KEY (subscription_id, period_start)
);
CREATE INDEX recap_sends_due ON recap_sends (next_attempt_at) WHERE status = 'pending';
