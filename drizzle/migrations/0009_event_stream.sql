ALTER TABLE "events" ADD COLUMN "xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
CREATE INDEX "events_plan_id_xid_id" ON "events" USING btree ("plan_id","xid","id");--> statement-breakpoint
CREATE INDEX "events_xid_id" ON "events" USING btree ("xid","id");--> statement-breakpoint
-- Wakes followers of the audit log (LISTEN whilly_events) once per transaction and plan, however many
-- events it wrote: a statement-level trigger sends one notification per plan per statement, and Postgres
-- folds a transaction's identical notifications into one. The payload is the plan id, or '' ("any plan")
-- for an id too long for a payload.
CREATE FUNCTION "whilly_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('whilly_events', CASE WHEN octet_length(p.plan_id) > 7999 THEN '' ELSE p.plan_id END)
  FROM (SELECT DISTINCT plan_id FROM new_events) AS p;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "events_notify" AFTER INSERT ON "events" REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION "whilly_events_notify"();
