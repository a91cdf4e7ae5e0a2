ALTER TABLE "tasks" ADD COLUMN "work_branch" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "work_commit" text;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_work_both_or_neither" CHECK (("tasks"."work_branch" IS NULL) = ("tasks"."work_commit" IS NULL));