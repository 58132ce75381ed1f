-- Alert rules (issue 38): an organization's rules, for all its videos or
-- one campaign's; the firings (one per rule, subject and threshold, which
-- the UNIQUE constraint decides even with several workers); and one send
-- per firing and recipient (an e-mail address or a chat URL), retried a few
-- times under a lease like the webhook deliveries.

CREATE TABLE alert_rules (
    id              BLOB PRIMARY KEY,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    campaign_id     BLOB REFERENCES campaigns (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    kind            TEXT NOT NULL,      -- views_milestone | velocity | outlier | followers_milestone | video_unavailable
    params          TEXT NOT NULL,      -- JSON object, by kind
    channels        TEXT NOT NULL,      -- JSON array of channels
    enabled         BOOLEAN NOT NULL DEFAULT TRUE,
    evaluated_at    TEXT,               -- the worker's last pass
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX alert_rules_org ON alert_rules (organization_id, created_at);

CREATE TABLE alert_events (
    id              BLOB PRIMARY KEY,
    rule_id         BLOB NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    subject         TEXT NOT NULL,      -- the tracked video's id, or the creator's
    threshold_key   TEXT NOT NULL,      -- the threshold or condition that fired
    fired_at        TEXT NOT NULL,
    message         TEXT NOT NULL,      -- the plain text sent
    details         TEXT NOT NULL,      -- JSON
    UNIQUE (rule_id, subject, threshold_key)
);
CREATE INDEX alert_events_rule ON alert_events (rule_id, fired_at);
CREATE INDEX alert_events_org ON alert_events (organization_id, fired_at);

CREATE TABLE alert_sends (
    id              BLOB PRIMARY KEY,
    event_id        BLOB NOT NULL REFERENCES alert_events (id) ON DELETE CASCADE,
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    channel         TEXT NOT NULL,      -- email | slack | discord | webhooks
    target          TEXT NOT NULL,      -- the address, the chat URL, or '' (webhooks)
    status          TEXT NOT NULL,      -- pending | sent | failed
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    lease_until     TEXT,
    lease_token     BLOB,
    last_error      TEXT,
    sent_at         TEXT,
    created_at      TEXT NOT NULL,
    UNIQUE (event_id, channel, target)
);
CREATE INDEX alert_sends_due ON alert_sends (next_attempt_at) WHERE status = 'pending';
