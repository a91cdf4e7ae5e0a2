import type { Store } from "@whilly/worker-api";
import type { Io } from "./io.js";
import { type CliSettings, parseCliSettings } from "./settings.js";
import { openCliStore, type StoreUse } from "./store/open-store.js";

/**
 * What every command handler gets: the I/O, the settings (validated once, on first use, so `--help`
 * works with a broken environment), and the store (opened once per command, closed by `main`).
 */
export class CliContext {
  exitCode = 0;
  private cachedSettings: CliSettings | undefined;
  private storePromise: Promise<Store> | undefined;

  /**
   * @param command the command's name (`run`, `dashboard`), recorded in the embedded store's lock so
   *   that another command refused the store can say what holds it.
   */
  constructor(
    readonly io: Io,
    readonly command?: string,
  ) {}

  /** @throws {ConfigurationError} when the environment is invalid. */
  get settings(): CliSettings {
    this.cachedSettings ??= parseCliSettings(this.io.env);
    return this.cachedSettings;
  }

  /**
   * Opens the store the settings name: Postgres, or the embedded one under `.whilly/`. The first call
   * opens it, so its `use` decides (see {@link StoreUse}); later calls share that store.
   */
  store(use: StoreUse = {}): Promise<Store> {
    this.storePromise ??= openCliStore(this.settings, this.io, { command: this.command, ...use });
    return this.storePromise;
  }

  /** Closes the store if a command opened it. */
  async close(): Promise<void> {
    if (!this.storePromise) return;
    const store = await this.storePromise.catch(() => undefined);
    await store?.close();
  }
}
