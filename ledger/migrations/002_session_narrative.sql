-- An agent session's narrative (session.log_event, session.complete): the
-- events it logged, and how it ended. A session ends once; after that it
-- takes no more events.

ALTER TABLE sessions
	ADD COLUMN status text NOT NULL DEFAULT 'open'
		CHECK (status IN ('open', 'completed', 'failed', 'abandoned')),
	ADD COLUMN summary text NOT NULL DEFAULT '',
	ADD COLUMN ended_at timestamptz,
	ADD COLUMN ended_by text NOT NULL DEFAULT '',
	-- The call that ended it: a retried completion is not a second one.
	ADD COLUMN end_call_id text NOT NULL DEFAULT '';

CREATE TABLE session_events (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at         timestamptz NOT NULL,
	session_id text NOT NULL,
	project_id text NOT NULL DEFAULT '',
	call_id    text NOT NULL DEFAULT '',
	kind       text NOT NULL CHECK (kind IN ('thought', 'action', 'decision', 'observation', 'error')),
	text       text NOT NULL,
	refs       jsonb NOT NULL DEFAULT '[]',
	actor      text NOT NULL DEFAULT ''
);
-- One event per call: a retried log of the same call is not a second one.
CREATE UNIQUE INDEX session_events_call_id_key ON session_events (call_id) WHERE call_id <> '';
CREATE INDEX session_events_session_idx ON session_events (session_id, id);
