ALTER TABLE "plans" ADD COLUMN "verify" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "setup" text;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "max_attempts" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "max_attempts" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "not_before" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "last_failure" jsonb;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "verification" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "progress" jsonb;--> statement-breakpoint
CREATE INDEX "tasks_in_flight" ON "tasks" USING btree ("plan_id") WHERE "tasks"."claimed_by" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD CONSTRAINT "plans_max_attempts_positive" CHECK ("plans"."max_attempts" IS NULL OR "plans"."max_attempts" >= 1);--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_verification_valid" CHECK ("tasks"."verification" IS NULL OR "tasks"."verification" IN ('passed', 'unverified'));--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_max_attempts_positive" CHECK ("tasks"."max_attempts" IS NULL OR "tasks"."max_attempts" >= 1);