/** A structured log line sink: `event` is a stable dotted name, fields carry ids. */
export type Logger = (level: "debug" | "info" | "warn" | "error", event: string, fields?: object) => void;
