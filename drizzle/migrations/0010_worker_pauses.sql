CREATE TABLE "worker_pauses" (
	"scope" text PRIMARY KEY NOT NULL,
	"reason" text NOT NULL,
	"paused_at" timestamp with time zone DEFAULT now() NOT NULL
);
