-- Webhooks: an organization's endpoints and the events they subscribe to,
-- the outbox of events (written in the transaction of the change that
-- causes them, only when an enabled endpoint subscribes), and one delivery
-- per event and endpoint, claimed by workers under a lease.

CREATE TABLE webhook_endpoints (
    id                         BLOB PRIMARY KEY,
    organization_id            BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    url                        TEXT NOT NULL,
    description                TEXT,
    secret                     TEXT NOT NULL,   -- whsec_…: signs every delivery
    previous_secret            TEXT,            -- the one before a rotation …
    previous_secret_expires_at TEXT,            -- … still signing until then
    enabled                    BOOLEAN NOT NULL DEFAULT TRUE,
    disabled_reason            TEXT,
    failing_since              TEXT,            -- first failure of the current streak
    created_at                 TEXT NOT NULL,
    updated_at                 TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (organization_id, created_at);

CREATE TABLE webhook_subscriptions (
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    event_type      TEXT NOT NULL,
    endpoint_id     BLOB NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    PRIMARY KEY (organization_id, event_type, endpoint_id)
) WITHOUT ROWID;
CREATE INDEX webhook_subscriptions_endpoint ON webhook_subscriptions (endpoint_id);
CREATE INDEX webhook_subscriptions_type ON webhook_subscriptions (event_type);

CREATE TABLE webhook_events (
    id              BLOB PRIMARY KEY,           -- webhook-id of every delivery of it
    organization_id BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    event_type      TEXT NOT NULL,
    body            TEXT NOT NULL,              -- {"type","timestamp","data"}, as signed
    created_at      TEXT NOT NULL
);
CREATE INDEX webhook_events_org_created ON webhook_events (organization_id, created_at);
CREATE INDEX webhook_events_created ON webhook_events (created_at);  -- retention

CREATE TABLE webhook_deliveries (
    id               BLOB PRIMARY KEY,
    event_id         BLOB NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    endpoint_id      BLOB NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    organization_id  BLOB NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    status           TEXT NOT NULL,             -- pending | delivered | failed
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT,
    lease_until      TEXT,
    lease_token      BLOB,
    last_attempt_at  TEXT,
    last_status_code INTEGER,
    last_error       TEXT,
    last_latency_ms  INTEGER,
    delivered_at     TEXT,
    created_at       TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_lease ON webhook_deliveries (lease_token) WHERE lease_token IS NOT NULL;

-- How far a time-driven event (a tracking window ending) has been written.
CREATE TABLE webhook_sweeps (
    name         TEXT PRIMARY KEY,
    swept_until  TEXT NOT NULL
);
