-- The ledger: every tool call with its attribution stamp, the sessions the
-- calls came from, and every approval decision.

CREATE TABLE actions (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at          timestamptz NOT NULL,
	call_id     text NOT NULL DEFAULT '',
	tool_id     text NOT NULL,
	adapter_id  text NOT NULL DEFAULT '',
	session_id  text NOT NULL DEFAULT '',
	project_id  text NOT NULL DEFAULT '',
	caller      text NOT NULL DEFAULT '',
	status      text NOT NULL CHECK (status IN ('success', 'error')),
	error_type  text NOT NULL DEFAULT '',
	error_class text NOT NULL DEFAULT '',
	duration_ms double precision NOT NULL DEFAULT 0,
	-- The attribution stamp (actor, actor_verified, client, claimed): JSON,
	-- so what the stamp carries can grow without a migration.
	data        jsonb NOT NULL DEFAULT '{}'
);
-- One action per call: a retried record of the same call is not a second one.
CREATE UNIQUE INDEX actions_call_id_key ON actions (call_id) WHERE call_id <> '';
CREATE INDEX actions_at_idx ON actions (at DESC, id DESC);
CREATE INDEX actions_session_idx ON actions (session_id, at DESC, id DESC);
CREATE INDEX actions_project_idx ON actions (project_id, at DESC, id DESC);
CREATE INDEX actions_tool_idx ON actions (tool_id, at DESC, id DESC);

CREATE TABLE sessions (
	session_id     text PRIMARY KEY,
	project_id     text NOT NULL DEFAULT '',
	-- The client's name from the initialize handshake.
	agent_code     text NOT NULL DEFAULT '',
	client_version text NOT NULL DEFAULT '',
	actor          text NOT NULL DEFAULT '',
	first_seen     timestamptz NOT NULL,
	last_seen      timestamptz NOT NULL,
	actions        bigint NOT NULL DEFAULT 0
);
CREATE INDEX sessions_project_idx ON sessions (project_id, last_seen DESC);

CREATE TABLE decisions (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at          timestamptz NOT NULL,
	approval_id text NOT NULL,
	call_id     text NOT NULL DEFAULT '',
	tool_id     text NOT NULL DEFAULT '',
	session_id  text NOT NULL DEFAULT '',
	project_id  text NOT NULL DEFAULT '',
	outcome     text NOT NULL,
	decided_by  text NOT NULL DEFAULT '',
	by_verified boolean NOT NULL DEFAULT false,
	route       text NOT NULL DEFAULT '',
	comment     text NOT NULL DEFAULT '',
	-- A retried record of the same decision is not a second one.
	UNIQUE (approval_id, outcome)
);
CREATE INDEX decisions_call_idx ON decisions (call_id, at DESC);
CREATE INDEX decisions_project_idx ON decisions (project_id, at DESC, id DESC);
