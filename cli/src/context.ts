import type { Store } from "@whilly/worker-api";
import type { Io } from "./io.js";
import type { CliSettings } from "./settings.js";
import type { StoreUse } from "./store/open-store.js";

/**
 * What every command handler gets: the I/O, the settings (validated once, on first use, so `--help`
 * works with a broken environment), and the store (opened once per command, closed by `main`).
 */
export class CliContext {
  exitCode = 0;
  private cachedSettings: CliSettings | undefined;
  private parseSettings: typeof import("./settings.js").parseCliSettings | undefined;
  private storePromise: Promise<Store> | undefined;

  /**
   * @param command the command's name (`run`, `dashboard`), recorded in the embedded store's lock so
   *   that another command refused the store can say what holds it.
   */
  constructor(
    readonly io: Io,
    readonly command?: string,
  ) {}

  /**
   * Loads what reading the settings needs (the agent's settings come with them), so that only a command
   * that runs pays for it, not `--help` or a usage error; `main` calls it before any command's handler.
   */
  async load(): Promise<void> {
    this.parseSettings ??= (await import("./settings.js")).parseCliSettings;
  }

  /**
   * @throws {ConfigurationError} when the environment is invalid.
   * @throws {Error} when read before {@link load}: a bug.
   */
  get settings(): CliSettings {
    if (this.parseSettings === undefined) throw new Error("CliContext.settings read before load()");
    this.cachedSettings ??= this.parseSettings(this.io.env);
    return this.cachedSettings;
  }

  /**
   * Opens the store the settings name: Postgres, or the embedded one under `.whilly/`. The first call
   * opens it, so its `use` decides (see {@link StoreUse}); later calls share that store.
   */
  store(use: StoreUse = {}): Promise<Store> {
    // The store's modules (PGlite, drizzle, the local socket) load with the first store a command opens.
    if (this.storePromise === undefined) {
      const settings = this.settings;
      this.storePromise = import("./store/open-store.js").then(({ openCliStore }) =>
        openCliStore(settings, this.io, { command: this.command, ...use }),
      );
    }
    return this.storePromise;
  }

  /** Closes the store if a command opened it. */
  async close(): Promise<void> {
    if (!this.storePromise) return;
    const store = await this.storePromise.catch(() => undefined);
    await store?.close();
  }
}
