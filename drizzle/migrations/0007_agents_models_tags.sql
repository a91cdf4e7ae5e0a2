ALTER TABLE "plans" ADD COLUMN "agent" text;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "model" text;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "fallback_agents" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "agent" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "model" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "required_tags" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "fallback_agent" text;--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "agents" text[];--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "tags" text[];--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "agent" text;--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "force_agent" text;--> statement-breakpoint
ALTER TABLE "workers" ADD COLUMN "capabilities_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "tasks_ready_untagged_claim_order" ON "tasks" USING btree ("plan_id","priority_rank","id") WHERE "tasks"."status" = 'PENDING' AND "tasks"."unfinished_deps" = 0 AND "tasks"."required_tags" = '{}'::text[];--> statement-breakpoint
CREATE INDEX "tasks_required_tags" ON "tasks" USING gin ("required_tags");