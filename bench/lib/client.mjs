// A minimal protocol-v1 client for the bench: undici with a keep-alive pool, counting every request it
// sends so the report can give requests per task as the client saw them.
import { Agent, request } from "undici";

/** A registered worker. @typedef {{ worker_id: string, token: string }} Worker */
/** A claimed task, as much of it as the bench uses. @typedef {{ id: string, plan_id: string, version: number }} Task */

/** An answer the bench did not expect. */
export class UnexpectedStatus extends Error {
  /** @param {string} what @param {number} status @param {string} body */
  constructor(what, status, body) {
    super(`${what}: HTTP ${status} ${body.slice(0, 300)}`);
    this.status = status;
  }
}

export class BenchClient {
  /**
   * @param {string} baseUrl e.g. `http://127.0.0.1:8000`; must be a loopback address.
   * @param {{ connections: number }} options keep-alive connections to open at most (≥ concurrent requests).
   */
  constructor(baseUrl, { connections }) {
    const host = new URL(baseUrl).hostname;
    if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]") {
      throw new Error(`the bench only talks to loopback addresses; got ${baseUrl}`);
    }
    this.baseUrl = baseUrl;
    this.requests = 0;
    // Timeouts above the 30 s long-poll ceiling, so a parked claim is never cut by the client.
    this.agent = new Agent({
      connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: 45_000,
      bodyTimeout: 45_000,
    });
  }

  /**
   * `POST path` with a JSON body and a bearer.
   * @returns {Promise<{ status: number, body: string }>}
   */
  async post(path, token, body, signal) {
    this.requests++;
    const response = await request(`${this.baseUrl}${path}`, {
      method: "POST",
      dispatcher: this.agent,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    return { status: response.statusCode, body: await response.body.text() };
  }

  /**
   * Registers a worker with the bootstrap token. @param {string} bootstrapToken @param {string} hostname
   * @returns {Promise<Worker>}
   */
  async register(bootstrapToken, hostname) {
    // A 503 (the database refused a connection, e.g. a shared server at max_connections) is retried.
    for (let attempt = 1; ; attempt++) {
      const { status, body } = await this.post("/workers/register", bootstrapToken, { hostname });
      if (status === 201) return JSON.parse(body);
      if (status !== 503 || attempt >= 5) throw new UnexpectedStatus("register", status, body);
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }

  /**
   * Registers `count` workers, `concurrency` at a time. @returns {Promise<Worker[]>}
   * @param {string} bootstrapToken @param {number} count @param {number} [concurrency]
   */
  async registerMany(bootstrapToken, count, concurrency = 8) {
    const workers = new Array(count);
    let next = 0;
    const lane = async () => {
      while (next < count) {
        const index = next++;
        workers[index] = await this.register(bootstrapToken, `bench-${index}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
    return workers;
  }

  /**
   * One long-poll claim that also starts the task (`start: true`).
   * @param {Worker} worker @param {string} planId @param {AbortSignal} [signal]
   * @returns {Promise<Task | undefined>} undefined for 204 (nothing became ready in time).
   */
  async claim(worker, planId, signal) {
    const { status, body } = await this.post(
      "/tasks/claim",
      worker.token,
      { worker_id: worker.worker_id, plan_id: planId, start: true },
      signal,
    );
    if (status === 204) return undefined;
    if (status !== 200) throw new UnexpectedStatus("claim", status, body);
    return JSON.parse(body).task;
  }

  /** Reports a task done (no-op agent, no cost). @param {Worker} worker @param {Task} task */
  async complete(worker, task) {
    const { status, body } = await this.post(`/tasks/${encodeURIComponent(task.id)}/complete`, worker.token, {
      worker_id: worker.worker_id,
      plan_id: task.plan_id,
      version: task.version,
    });
    if (status !== 200) throw new UnexpectedStatus(`complete ${task.id}`, status, body);
  }

  async close() {
    await this.agent.destroy();
  }
}
